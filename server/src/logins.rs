//! Create customer and connect customer off the writer: their argon2 work (tens of
//! milliseconds of CPU each) runs on a hashing pool of its own, outside any transaction,
//! and only their short write (the customer, the link, or the failed login counted)
//! queues for the writer thread, so that a flood of logins does not hold up other
//! tenants' writes.
//!
//! For each such request: a permit of the hashing pool (one per processor, for the whole
//! process); on a reader of the pool, the key and the read step
//! ([`consign::Shipping::password_work`]: the throttle, the body, the stored hash), which
//! may answer at once (a locked e-mail or key is a cheap 429); the password work
//! ([`consign::PasswordWork::run`]) on the same blocking thread; then the permit is given
//! back and the outcome queues for the writer as a [`Call`] whose `password` is set.
//! A request with an `Idempotency-Key` whose answer is kept is answered with it before
//! any password work.

use std::sync::{Arc, LazyLock};

use consign::{Error, Response};
use tokio::sync::Semaphore;

use super::{failed, App, Call, Write};

/// The hashing pool: at most one password hashed or verified per processor at once, in
/// the whole process (several servers in one process share the processors too).
static HASHING: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, usize::from)));

/// True for create and connect customer, the operations of partner keys, which check a
/// password: what [`answer`] serves.
pub(super) fn serves(operation: &consign::Operation) -> bool {
    operation.access() == consign::Access::Partner
}

/// Core's answer to `call`, create or connect customer, with its password work on the
/// hashing pool and its short write on the writer.
pub(super) async fn answer(app: &Arc<App>, call: Call) -> Response {
    let Ok(permit) = HASHING.acquire().await else {
        return Response::error(&failed());
    };
    let Some(lease) = app.pool.lease().await else {
        return Response::error(&Error::internal("No database connection of the server was free for this request."));
    };
    let worked = tokio::task::spawn_blocking(move || {
        let begun = lease.shipping.as_ref().map(|shipping| match call.caller(shipping) {
            // A retry with its Idempotency-Key is answered as before, without the work.
            Ok(caller) => match call.once.as_ref().and_then(|once| shipping.kept_answer(&caller, once, &call.method, &call.target)) {
                Some(kept) => Some(Err(kept)),
                None => shipping.password_work(&caller, &call.method, &call.target, &call.body),
            },
            Err(e) => Some(Err(Response::error(&e))),
        });
        // The reader goes back before the slow part.
        drop(lease);
        let outcome = match begun {
            Some(Some(Ok(work))) => Ok(work.run()),
            Some(Some(Err(answered))) => Err(answered),
            // Not create or connect customer: `serves` let through what it should not.
            Some(None) | None => Err(Response::error(&failed())),
        };
        (call, outcome)
    })
    .await;
    drop(permit);
    let (call, outcome) = match worked {
        Ok((call, Ok(outcome))) => (call, outcome),
        Ok((_, Err(answered))) => return answered,
        Err(_) => return Response::error(&failed()),
    };
    let (answer, answered) = tokio::sync::oneshot::channel();
    // The password is not needed any more, and does not wait in the queue.
    let request = Call { body: String::new(), password: Some(outcome), ..call };
    if app.writes.send(Write { request, answer }).await.is_err() {
        return Response::error(&failed());
    }
    answered.await.unwrap_or_else(|_| Response::error(&failed()))
}
