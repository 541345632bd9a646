//! The facade's create customer (4.9) and connect customer in three steps, so that the
//! argon2 work (tens of milliseconds of CPU) runs outside any transaction and the login
//! throttle (`logins.rs`) holds on every path:
//! 1. a read: the caller may create or connect, the account and the key are not locked,
//!    the request is valid; for a connect, the stored hash ([`PasswordWork`]);
//! 2. the password work, pure: hash the new password, or verify the one sent
//!    ([`PasswordWork::run`]);
//! 3. a short write: the customer and its link to the key, the link of a login, or the
//!    failure counted (`Shipping::finish_password_work`). A failure is counted by a
//!    write that succeeds, and the error is answered after it, so that the count is
//!    committed whatever the transaction around it.
//!
//! [`Shipping::create_customer`], [`Shipping::connect_customer`] and the routes run the
//! three in turn; `consign serve` runs the second on a pool of its own, so that only the
//! short write waits for its writer.

use super::Shipping;
use crate::customers::{self, CustomerDraft, NewCustomer};
use crate::error::{ErrorCategory, Result};
use crate::keys::{self, Caller};
use crate::logins::{self, Subjects};
use crate::secrets::Secret;
use crate::store::Tx;
use crate::wire;

/// Create or connect customer, read and checked: its password work is next
/// ([`PasswordWork::run`], on any thread), then its short write
/// ([`Shipping::answer_password`]). Made by [`Shipping::password_work`]. Its `Debug`
/// shows the caller only: it holds a password and a stored hash.
pub struct PasswordWork {
    caller: Option<Caller>,
    subjects: Subjects,
    work: Work,
}

enum Work {
    Create(CustomerDraft),
    Connect { credentials: Option<(String, String)>, password: Secret },
}

/// Create or connect customer with its password work done: what its short write
/// ([`Shipping::answer_password`]) needs. Holds no password, only its hash; its `Debug`
/// shows the caller only.
#[derive(Clone)]
pub struct PasswordOutcome {
    caller: Option<Caller>,
    subjects: Subjects,
    done: Done,
}

#[derive(Clone)]
enum Done {
    Create(Result<NewCustomer>),
    Connect(Result<wire::CustomerIdResponse>),
}

impl std::fmt::Debug for PasswordWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordWork").field("caller", &self.caller).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for PasswordOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordOutcome").field("caller", &self.caller).finish_non_exhaustive()
    }
}

impl PasswordWork {
    /// Hashes the new customer's password, or verifies the login's (argon2id): tens of
    /// milliseconds of CPU and no database, so run it where it holds up nothing else.
    pub fn run(self) -> PasswordOutcome {
        let done = match self.work {
            Work::Create(draft) => Done::Create(draft.hash()),
            Work::Connect { credentials, password } => Done::Connect(customers::verify(credentials, password.expose())),
        };
        PasswordOutcome { caller: self.caller, subjects: self.subjects, done }
    }
}

impl PasswordOutcome {
    /// True for a create customer (answered 201), false for a connect (200).
    pub(crate) fn creates(&self) -> bool {
        matches!(self.done, Done::Create(_))
    }
}

impl Shipping {
    /// Create customer (4.9), `POST /restapi/v1/customers`.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming each invalid field; `CONFLICT` for a registered e-mail
    /// (counted as a failed login); `TOO_MANY_ATTEMPTS` while the e-mail is locked.
    pub fn create_customer(&self, req: &wire::CreateCustomerRequest) -> Result<wire::CustomerIdResponse> {
        self.finish_password_work(&self.begin_create_customer(None, req)?.run())
    }

    /// Connect customer, `POST /restapi/v1/connect-customer`.
    ///
    /// # Errors
    /// `UNAUTHORIZED` for a wrong pair or an unknown e-mail (counted as a failed login);
    /// `TOO_MANY_ATTEMPTS` while the e-mail is locked, whatever the password.
    pub fn connect_customer(&self, req: &wire::ConnectCustomerRequest) -> Result<wire::CustomerIdResponse> {
        self.finish_password_work(&self.begin_connect_customer(None, req)?.run())
    }

    /// Create customer (4.9) by the partner key of `caller`, which acts for the new
    /// customer from the same transaction on.
    ///
    /// # Errors
    /// As [`Shipping::create_customer`], the key's failures counted too;
    /// `UNAUTHORIZED` for a customer key.
    pub fn create_customer_as(&self, caller: &Caller, req: &wire::CreateCustomerRequest) -> Result<wire::CustomerIdResponse> {
        self.finish_password_work(&self.begin_create_customer(Some(caller), req)?.run())
    }

    /// Connect customer by the partner key of `caller`: with the customer's e-mail and
    /// password, the key acts for that customer from then on.
    ///
    /// # Errors
    /// As [`Shipping::connect_customer`], the key's failures counted too;
    /// `UNAUTHORIZED` for a customer key.
    pub fn connect_customer_as(&self, caller: &Caller, req: &wire::ConnectCustomerRequest) -> Result<wire::CustomerIdResponse> {
        self.finish_password_work(&self.begin_connect_customer(Some(caller), req)?.run())
    }

    /// The read step of create customer: the caller may create, neither the e-mail nor
    /// the key is locked (checked before any other work), every field is valid.
    pub(crate) fn begin_create_customer(&self, caller: Option<&Caller>, req: &wire::CreateCustomerRequest) -> Result<PasswordWork> {
        if caller.is_some_and(|c| c.customer_id().is_some()) {
            return Err(keys::partner_only());
        }
        let subjects = Subjects::new(&req.email, caller.map(Caller::key_id));
        let now = self.clock.now();
        self.read(|conn| logins::check(conn, &subjects, now))?;
        let draft = customers::check(&self.catalog(), req)?;
        Ok(PasswordWork { caller: caller.cloned(), subjects, work: Work::Create(draft) })
    }

    /// The read step of connect customer: the caller may connect, neither the e-mail nor
    /// the key is locked, and the stored hash the password is verified against.
    pub(crate) fn begin_connect_customer(&self, caller: Option<&Caller>, req: &wire::ConnectCustomerRequest) -> Result<PasswordWork> {
        if caller.is_some_and(|c| c.customer_id().is_some()) {
            return Err(keys::partner_only());
        }
        let subjects = Subjects::new(&req.username, caller.map(Caller::key_id));
        let now = self.clock.now();
        let credentials = self.read(|conn| {
            logins::check(conn, &subjects, now)?;
            customers::credentials(conn, &req.username)
        })?;
        Ok(PasswordWork { caller: caller.cloned(), subjects, work: Work::Connect { credentials, password: req.password.clone() } })
    }

    /// The short write of create or connect customer once its password work is done, in
    /// one transaction (a savepoint in a group): the new customer and the caller's link
    /// to it; the link of a login and the end of the account's failures; or the failure
    /// counted against the account and the key, committed before the error is answered.
    /// A lock that began since the read step refuses even the right password.
    ///
    /// # Errors
    /// As [`Shipping::create_customer`] and [`Shipping::connect_customer`].
    pub(crate) fn finish_password_work(&self, outcome: &PasswordOutcome) -> Result<wire::CustomerIdResponse> {
        let PasswordOutcome { caller, subjects, done } = outcome;
        let now = self.clock.now();
        let link = |tx: &Tx<'_>, customer_id: &str| caller.as_ref().map_or(Ok(()), |c| keys::link(tx, c, customer_id, now));
        match done {
            Done::Create(Err(failed)) => Err(failed.clone()),
            Done::Connect(Err(failed)) if failed.category() != ErrorCategory::Unauthorized => Err(failed.clone()),
            Done::Create(Ok(new)) => self.write(|tx| {
                crate::store::lock_claim(tx, "email", new.email())?;
                if let Err(locked) = logins::check(tx, subjects, now) {
                    return Ok(Err(locked));
                }
                if customers::is_registered(tx, new.email())? {
                    logins::fail(tx, subjects, now)?;
                    return Ok(Err(customers::already_registered(new.email())));
                }
                let created = customers::create(tx, new, now)?;
                link(tx, &created.customer_id)?;
                Ok(Ok(created))
            })?,
            Done::Connect(Ok(found)) => self.write(|tx| {
                if let Err(locked) = logins::check(tx, subjects, now) {
                    return Ok(Err(locked));
                }
                logins::succeed(tx, subjects)?;
                link(tx, &found.customer_id)?;
                Ok(Ok(found.clone()))
            })?,
            Done::Connect(Err(refused)) => self.write(|tx| {
                logins::fail(tx, subjects, now)?;
                Ok(Err(refused.clone()))
            })?,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is a failed test")]

    use crate::{Response, Shipping};

    use crate::shipping::testing::customer_body;

    /// What a front end answers through `password_work`, `run` and `answer_password`.
    fn in_steps(s: &Shipping, caller: &crate::Caller, method: &str, path: &str, body: &str) -> Option<Response> {
        Some(match s.password_work(caller, method, path, body)? {
            Ok(work) => s.answer_password(&work.run()),
            Err(answered) => answered,
        })
    }

    /// The steps answer exactly as `handle_as` does, each request made twice on two
    /// services in the same state (and at the same instant: the throttle's answer names
    /// the seconds left); every other route is `None`.
    #[test]
    fn the_three_steps_answer_as_handle_as_does() {
        let clock = std::sync::Arc::new(crate::FixedClock::at("2026-11-21T15:00:00Z").unwrap());
        let open = || Shipping::builder().clock(clock.clone()).open().unwrap();
        let (stepped, whole) = (open(), open());
        let key = |s: &Shipping, customer: Option<&str>| s.authenticate(&s.create_api_key(customer, "").unwrap().key).unwrap();
        let (p1, p2) = (key(&stepped, None), key(&whole, None));
        let login = |password: &str| format!(r#"{{"username": "ann@example.com", "password": "{password}"}}"#);
        let create = ("POST", "/restapi/v1/customers");
        let connect = ("POST", "/restapi/v1/connect-customer?x=1");
        let mut requests =
            vec![(create, customer_body("ann@example.com")), (create, customer_body("ann@example.com")), (create, "{".into())];
        requests.extend((0..5).map(|_| (connect, login("wrong horse"))));
        requests.push((connect, login("correct horse")));
        let mut statuses = Vec::new();
        for ((method, path), body) in &requests {
            let answer = in_steps(&stepped, &p1, method, path, body).unwrap();
            assert_eq!(answer, whole.handle_as(&p2, method, path, body), "{method} {path} {body}");
            statuses.push(answer.status);
        }
        // The conflict counted as the first failure: the fifth is the fourth wrong password.
        assert_eq!(statuses, [201, 409, 400, 401, 401, 401, 401, 429, 429]);
        let own = key(&stepped, Some("C0000001"));
        assert_eq!(in_steps(&stepped, &own, "POST", "/restapi/v1/customers", &customer_body("bo@example.com")).unwrap().status, 401);
        assert_eq!(in_steps(&stepped, &p1, "GET", "/restapi/v1/customers/C0000001/prepay", ""), None);
        assert_eq!(in_steps(&stepped, &p1, "GET", "/restapi/v1/connect-customer", ""), None);
    }
}
