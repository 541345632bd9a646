//! [`Shipping`]: the facade that owns the store, the clock and the catalog, with one
//! method per operation. Every write of an operation is one IMMEDIATE transaction that
//! commits only when the operation succeeds.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde_json::value::RawValue;

use crate::catalog::{Catalog, Profile};
use crate::clock::{Clock, SystemClock};
use crate::customers::{self, Customer};
use crate::error::{Error, ErrorCategory, Result};
use crate::quoting::{self, Context, ShipmentRows, ToStore, MAX_BATCH};
use crate::rating::{self, CsvKind, ImportSummary, PieceInput, RateBook};
use crate::{accounts, batches, booking, ledger, store, wire};

/// The shipping service on one SQLite database.
///
/// `Shipping` is `Send + Sync`: operations on one instance are serialised on its
/// connection, so share it behind an `Arc` between threads.
pub struct Shipping {
    conn: Mutex<Connection>,
    clock: Arc<dyn Clock>,
    catalog: RwLock<Arc<Catalog>>,
    rates: RwLock<Arc<RateBook>>,
    labels_at_booking: bool,
}

impl std::fmt::Debug for Shipping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shipping").finish_non_exhaustive()
    }
}

/// Options for opening a [`Shipping`]: where the database is and which clock to use.
#[derive(Default)]
pub struct ShippingBuilder {
    path: Option<PathBuf>,
    clock: Option<Arc<dyn Clock>>,
    lazy_labels: bool,
    bytes: Option<Vec<u8>>,
}

impl std::fmt::Debug for ShippingBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShippingBuilder").field("path", &self.path).finish_non_exhaustive()
    }
}

impl ShippingBuilder {
    /// Use the database file at `path` (created if missing). Without a path the database
    /// lives in memory.
    pub fn path(mut self, path: impl AsRef<Path>) -> Self {
        self.path = Some(path.as_ref().to_path_buf());
        self
    }

    /// Use `clock` for "now" and "today" (the system clock by default).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Render labels when they are first retrieved instead of at booking (default: at
    /// booking, so that a booking that cannot print fails whole). For applications that
    /// print later, or in bulk.
    pub fn lazy_labels(mut self, lazy: bool) -> Self {
        self.lazy_labels = lazy;
        self
    }

    /// Start from `bytes`, a whole database as [`Shipping::export_database`] gives it:
    /// they replace what the database (in memory, or the file at `path`) held.
    pub fn bytes(mut self, bytes: Vec<u8>) -> Self {
        self.bytes = Some(bytes);
        self
    }

    /// Opens the database, applies pending migrations and seeds the default catalog on
    /// first open.
    ///
    /// # Errors
    /// `INTERNAL` when the file cannot be opened, was written by a newer schema, or holds
    /// a catalog that does not load.
    pub fn open(self) -> Result<Shipping> {
        let mut conn = match &self.path {
            Some(path) => Connection::open(path),
            None => Connection::open_in_memory(),
        }
        .map_err(|e| Error::internal(format!("could not open the database: {e}")))?;
        if let Some(bytes) = &self.bytes {
            store::restore(&mut conn, bytes, self.path.is_none())?;
        }
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock));
        Shipping::from_connection(conn, clock, !self.lazy_labels)
    }
}

impl Shipping {
    /// Options for opening a service: database path and clock.
    pub fn builder() -> ShippingBuilder {
        ShippingBuilder::default()
    }

    /// Opens (or creates) the database file at `path` with the system clock.
    ///
    /// # Errors
    /// As [`ShippingBuilder::open`].
    pub fn open(path: impl AsRef<Path>) -> Result<Shipping> {
        Self::builder().path(path).open()
    }

    /// A service on a fresh in-memory database with the system clock.
    ///
    /// # Errors
    /// As [`ShippingBuilder::open`].
    pub fn open_in_memory() -> Result<Shipping> {
        Self::builder().open()
    }

    fn from_connection(mut conn: Connection, clock: Arc<dyn Clock>, labels_at_booking: bool) -> Result<Shipping> {
        store::configure(&conn)?;
        store::migrate(&mut conn)?;
        let catalog = {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let stored: Option<String> = tx.query_row("SELECT document FROM catalog WHERE id = 1", [], |r| r.get(0)).optional()?;
            let catalog = match stored {
                Some(doc) => {
                    Catalog::from_json(&doc).map_err(|e| Error::internal(format!("the stored catalog does not load: {}", e.message())))?
                }
                None => {
                    let catalog = Catalog::default_catalog()?;
                    tx.execute(
                        "INSERT INTO catalog (id, document, updated_at) VALUES (1, ?1, ?2)",
                        [crate::catalog::DEFAULT_CATALOG_JSON, &ledger::timestamp(clock.now())],
                    )?;
                    catalog
                }
            };
            tx.commit()?;
            catalog
        };
        let rates = load_rate_book(&conn)?;
        Ok(Shipping {
            conn: Mutex::new(conn),
            clock,
            catalog: RwLock::new(Arc::new(catalog)),
            rates: RwLock::new(rates),
            labels_at_booking,
        })
    }

    /// The whole database as bytes (an SQLite file image), for backups and for moving a
    /// database between a browser and a desktop; [`ShippingBuilder::bytes`] opens it.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn export_database(&self) -> Result<Vec<u8>> {
        store::serialize(&mut self.lock())
    }

    /// The clock this service reads.
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// The catalog in force.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().map(|c| Arc::clone(&c)).unwrap_or_else(|p| Arc::clone(&p.into_inner()))
    }

    /// The rate book in force.
    pub fn rate_book(&self) -> Arc<RateBook> {
        self.rates.read().map(|r| Arc::clone(&r)).unwrap_or_else(|p| Arc::clone(&p.into_inner()))
    }

    /// Imports rate data of `kind` from CSV (the format of `docs/rate-cards.md`): every
    /// row is checked (errors carry line numbers), the cards and charts it names are
    /// replaced in one transaction, and the new rate book is swapped in whole.
    ///
    /// # Errors
    /// `INVALID_REQUEST` with a detail per invalid line (`line 12`), or naming what
    /// would be inconsistent; nothing is written then and the old book stays in force.
    pub fn import_rates(&self, kind: CsvKind, csv: &str) -> Result<ImportSummary> {
        let (summary, book) = self.write(|tx| {
            // From now on this database's rates are its own, not the embedded default.
            store::next_id(tx, RATE_REVISION)?;
            rating::import(tx, &self.catalog(), kind, csv)
        })?;
        match self.rates.write() {
            Ok(mut r) => *r = Arc::new(book),
            Err(p) => *p.into_inner() = Arc::new(book),
        }
        Ok(summary)
    }

    /// Exports the rate data of `kind` as CSV, in the import format.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn export_rates(&self, kind: CsvKind) -> Result<String> {
        self.read(|conn| rating::export_csv(conn, kind).map_err(|e| Error::internal(format!("could not export {}: {e}", kind.as_str()))))
    }

    /// Replaces the catalog with `json` (the format of `core/data/catalog.json`).
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming what is inconsistent, or a profile that customers use and
    /// the new catalog lacks; the old catalog stays in force.
    pub fn import_catalog(&self, json: &str) -> Result<()> {
        let catalog = Catalog::from_json(json)?;
        self.write(|tx| {
            let mut used = tx.prepare("SELECT DISTINCT profile_code FROM customers ORDER BY profile_code")?;
            let used = used.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
            let missing: Vec<&str> = used.iter().map(String::as_str).filter(|code| catalog.profile(code).is_none()).collect();
            if !missing.is_empty() {
                return Err(Error::invalid("profiles", format!("customers use profiles the catalog lacks: {}", missing.join(", "))));
            }
            tx.execute("UPDATE catalog SET document = ?1, updated_at = ?2 WHERE id = 1", [json, &ledger::timestamp(self.clock.now())])?;
            Ok(())
        })?;
        match self.catalog.write() {
            Ok(mut c) => *c = Arc::new(catalog),
            Err(p) => *p.into_inner() = Arc::new(catalog),
        }
        Ok(())
    }

    /// The catalog document in force, as JSON.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn export_catalog(&self) -> Result<String> {
        self.read(|conn| Ok(conn.query_row("SELECT document FROM catalog WHERE id = 1", [], |r| r.get(0))?))
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-written transaction behind
        // (it rolls back on drop), so the connection stays usable.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the connection, for reads.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.lock();
        f(&conn)
    }

    /// Runs `f` in one IMMEDIATE transaction, committed only if `f` succeeds.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    /// Runs `f` in one write transaction with the booking context of `customer_id`: the
    /// catalog, rate book and clock in force, and the customer with its profile.
    fn write_booking<T>(&self, customer_id: &str, f: impl FnOnce(&Transaction, &booking::Context) -> Result<T>) -> Result<T> {
        let catalog = self.catalog();
        let rates = self.rate_book();
        let (today, now) = (self.clock.today(), self.clock.now());
        self.write(|tx| {
            let customer = customers::find(tx, customer_id)?;
            let profile = Self::profile(&catalog, &customer)?;
            let ctx = booking::Context {
                catalog: &catalog,
                rates: &rates,
                profile,
                customer: &customer,
                today,
                now,
                labels_at_booking: self.labels_at_booking,
            };
            f(tx, &ctx)
        })
    }

    fn customer(&self, conn: &Connection, customer_id: &str) -> Result<(Customer, Arc<Catalog>)> {
        let customer = customers::find(conn, customer_id)?;
        Ok((customer, self.catalog()))
    }

    fn profile<'c>(catalog: &'c Catalog, customer: &Customer) -> Result<&'c Profile> {
        catalog.profile(&customer.profile_code).ok_or_else(|| {
            Error::internal(format!("customer {} has profile {:?}, which the catalog lacks", customer.id, customer.profile_code))
        })
    }

    // ---- operations -------------------------------------------------------------------

    /// Create customer (4.9), `POST /restapi/v1/customers`.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming each invalid field; `CONFLICT` for a registered e-mail.
    pub fn create_customer(&self, req: &wire::CreateCustomerRequest) -> Result<wire::CustomerIdResponse> {
        let catalog = self.catalog();
        let now = self.clock.now();
        self.write(|tx| customers::create(tx, &catalog, req, now))
    }

    /// Connect customer, `POST /restapi/v1/connect-customer`.
    ///
    /// # Errors
    /// `UNAUTHORIZED` for a wrong pair or an unknown e-mail.
    pub fn connect_customer(&self, req: &wire::ConnectCustomerRequest) -> Result<wire::CustomerIdResponse> {
        self.read(|conn| customers::connect(conn, req))
    }

    /// Update payment method (4.12), `POST .../paymentMethod`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a bad address, token
    /// type, or a token that looks like a card number.
    pub fn update_payment_method(&self, customer_id: &str, req: &wire::UpdatePaymentMethodRequest) -> Result<wire::OkResponse> {
        let now = self.clock.now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            customers::update_payment_method(tx, customer_id, req, now)
        })
    }

    /// List services (4.4), `GET .../services`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn list_services(&self, customer_id: &str) -> Result<wire::ServicesResponse> {
        self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
            Ok(catalog.list_services(Self::profile(&catalog, &customer)?))
        })
    }

    /// List integrated quoting options (4.8), `GET .../integratedQuotingOptions`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn integrated_quoting_options(&self, customer_id: &str) -> Result<wire::IntegratedQuotingOptions> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            accounts::quoting_options(conn, customer_id)
        })
    }

    /// Set integrated quoting options, `PUT .../integratedQuotingOptions` (the whole list).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for an unknown or unoffered
    /// carrier, service or package type, or a repeated name.
    pub fn set_integrated_quoting_options(
        &self,
        customer_id: &str,
        req: &wire::IntegratedQuotingOptions,
    ) -> Result<wire::IntegratedQuotingOptions> {
        self.write(|tx| {
            let (customer, catalog) = self.customer(tx, customer_id)?;
            accounts::set_quoting_options(tx, &catalog, Self::profile(&catalog, &customer)?, customer_id, req)
        })
    }

    /// List provider accounts (4.11), `GET .../provider-accounts`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn provider_accounts(&self, customer_id: &str) -> Result<wire::ProviderAccountsResponse> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            accounts::list_provider_accounts(conn, customer_id)
        })
    }

    /// Put provider account, `PUT .../provider-accounts/:providerCode`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or provider; `INVALID_REQUEST` for fields the
    /// provider does not have or lacks.
    pub fn put_provider_account(
        &self,
        customer_id: &str,
        provider_code: &str,
        req: &wire::PutProviderAccountRequest,
    ) -> Result<wire::ProviderAccount> {
        let now = self.clock.now();
        self.write(|tx| {
            let (_, catalog) = self.customer(tx, customer_id)?;
            accounts::put_provider_account(tx, &catalog, customer_id, provider_code, req, now)
        })
    }

    /// Delete provider account, `DELETE .../provider-accounts/:id`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or account, or another customer's account.
    pub fn delete_provider_account(&self, customer_id: &str, id: &str) -> Result<wire::OkResponse> {
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            accounts::delete_provider_account(tx, customer_id, id)
        })
    }

    /// Regional shipment types (4.13), `GET .../regionalShipmentTypes/:postalCode`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a postal code that is
    /// neither a US ZIP in use nor a Canadian postal code.
    pub fn regional_shipment_types(&self, customer_id: &str, postal_code: &str) -> Result<wire::RegionalShipmentTypesResponse> {
        self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
            accounts::regional_shipment_types(&catalog, Self::profile(&catalog, &customer)?, postal_code)
        })
    }

    /// Create integration, `POST .../integrations`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for an empty name.
    pub fn create_integration(&self, customer_id: &str, req: &wire::CreateIntegrationRequest) -> Result<wire::CreateIntegrationResponse> {
        let now = self.clock.now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            accounts::create_integration(tx, customer_id, req, now)
        })
    }

    /// Prepay balance and ledger, `GET .../prepay`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn prepay(&self, customer_id: &str) -> Result<wire::PrepayResponse> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            ledger::prepay(conn, customer_id)
        })
    }

    /// Batch quote (4.1), `POST .../batch-quote`, for Rust callers with typed shipments.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `LIMIT_EXCEEDED` for more than 500
    /// shipments. Everything about one shipment is in its result instead.
    pub fn batch_quote(&self, customer_id: &str, shipments: &[wire::QuoteShipment]) -> Result<wire::BatchQuoteResponse> {
        check_batch_size(shipments.len())?;
        let items = shipments.iter().map(|s| Ok((Cow::Borrowed(s), None)));
        self.quote_items(customer_id, items, typed_answer)
    }

    /// Batch quote from the request body as sent; a shipment whose JSON does not fit the
    /// shipment shape fails alone. The answer is the JSON of [`wire::BatchQuoteResponse`],
    /// written straight from the priced quotes, without `wire::Quote`s in between.
    pub(crate) fn batch_quote_json(&self, customer_id: &str, body: &str) -> Result<String> {
        // The one-pass reader gives up on anything unusual, and then the long way finds
        // the same shipments or the error. A body of too many shipments takes the long
        // way too, so that one both too long and malformed is refused as malformed.
        #[cfg(not(target_arch = "wasm32"))]
        if body.len() >= READ_APART_FROM {
            return match self.batch_quote_read_apart(customer_id, body)? {
                Some(answer) => Ok(answer),
                None => self.batch_quote_long_way(customer_id, body),
            };
        }
        self.batch_quote_in_turn(customer_id, body)
    }

    /// [`Shipping::batch_quote_json`] reading the shipments first, then pricing them.
    fn batch_quote_in_turn(&self, customer_id: &str, body: &str) -> Result<String> {
        match wire::batch_shipments::<wire::QuoteShipment>(body, MAX_BATCH) {
            // (handed over one by one, not collected again: a shipment is over a kilobyte)
            Some(shipments) => {
                let items = shipments.into_iter().map(|(s, json)| Ok((Cow::Owned(s), Some(Cow::Borrowed(json)))));
                self.quote_items(customer_id, items, json_answer)
            }
            None => self.batch_quote_long_way(customer_id, body),
        }
    }

    /// [`Shipping::batch_quote_json`] of a long body, its shipments read on a thread of
    /// their own and priced here as they come: reading was about two fifths of a
    /// one-service batch, and pricing as much again. `None` when the one-pass reader gave
    /// up, which leaves the body to the long way (nothing is stored then).
    #[cfg(not(target_arch = "wasm32"))]
    fn batch_quote_read_apart(&self, customer_id: &str, body: &str) -> Result<Option<String>> {
        type Chunk<'b> = Vec<(wire::QuoteShipment, &'b str)>;
        std::thread::scope(|scope| {
            let (send, receive) = std::sync::mpsc::channel::<Chunk>();
            let reader = scope.spawn(move || {
                let mut chunk = Vec::with_capacity(CHUNK);
                let whole = wire::each_batch_shipment(body, MAX_BATCH, |s, json| {
                    chunk.push((s, json));
                    if chunk.len() == CHUNK {
                        // (the pricing side hangs up only when it no longer wants them)
                        let _ = send.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)));
                    }
                });
                if !chunk.is_empty() {
                    let _ = send.send(chunk);
                }
                whole
            });
            let items = receive.into_iter().flatten().map(|(s, json)| Ok((Cow::Owned(s), Some(Cow::Borrowed(json)))));
            let expected = wire::expected_shipments(body, MAX_BATCH);
            // (a reader that panicked read nothing usable: the long way reads the body again)
            let whole = || reader.join().unwrap_or(false);
            self.quote_items_if(customer_id, items, expected, whole, json_answer)
        })
    }

    /// The long way of a batch body: every shipment as a `RawValue`, each then parsed on
    /// its own, so that each error is worded as serde words it.
    fn batch_quote_long_way(&self, customer_id: &str, body: &str) -> Result<String> {
        let req: BorrowedBatchQuoteRequest = wire::parse_borrowed(body)?;
        check_batch_size(req.shipments.len())?;
        let items = req
            .shipments
            .iter()
            .map(|raw| wire::parse_body::<wire::QuoteShipment>(raw.get()).map(|s| (Cow::Owned(s), Some(Cow::Borrowed(raw.get())))));
        self.quote_items(customer_id, items, json_answer)
    }

    /// Validates, prices and stores the quotes of `items` (each a shipment and, when the
    /// request had it, its JSON as sent), and builds the answer with `answer` from the
    /// outcome of each shipment.
    fn quote_items<'a, T: Send>(
        &self,
        customer_id: &str,
        items: impl IntoIterator<Item = Result<(Cow<'a, wire::QuoteShipment>, Option<Cow<'a, str>>)>>,
        answer: fn(&[Outcome<'_>]) -> Result<T>,
    ) -> Result<T> {
        self.quote_items_if(customer_id, items, 0, || true, answer)?
            .ok_or_else(|| Error::internal("a batch of whole shipments was taken for a partial one"))
    }

    /// [`Shipping::quote_items`] of items that may turn out to be only the first of the
    /// request's, about `expected` of them: once they are used up, or when an error comes
    /// first, `whole` says whether they were all of them. `None` (nothing stored, no
    /// error) when they were not, and the request must be read again the long way.
    fn quote_items_if<'a, T: Send>(
        &self,
        customer_id: &str,
        items: impl IntoIterator<Item = Result<(Cow<'a, wire::QuoteShipment>, Option<Cow<'a, str>>)>>,
        expected: usize,
        whole: impl FnOnce() -> bool,
        answer: fn(&[Outcome<'_>]) -> Result<T>,
    ) -> Result<Option<T>> {
        // (asked once, at the first place that needs to know, and remembered)
        let (mut ask, mut known) = (Some(whole), None);
        let mut whole = move || *known.get_or_insert_with(|| ask.take().is_none_or(|w| w()));
        let context = self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
            let accounts = accounts::provider_account_ids(conn, customer_id)?;
            Ok((customer, catalog, accounts))
        });
        let (customer, catalog, provider_accounts) = match context {
            Ok(context) => context,
            // the request's own errors (a malformed body) come before the customer's
            Err(e) => return if whole() { Err(e) } else { Ok(None) },
        };
        let profile = match Self::profile(&catalog, &customer) {
            Ok(profile) => profile,
            Err(e) => return if whole() { Err(e) } else { Ok(None) },
        };
        let rates = self.rate_book();
        let cards = quoting::card_table(&catalog, &rates);
        let ctx = Context {
            catalog: &catalog,
            rates: &rates,
            profile,
            today: self.clock.today(),
            provider_accounts: &provider_accounts,
            cards: &cards,
        };
        let mut buf: Vec<PieceInput> = Vec::new();
        let items = items.into_iter();
        let expected = items.size_hint().0.max(expected);
        let mut rows = ShipmentRows::with_capacity(expected);
        // each shipment's outcome, and the number of its row when it has quotes to store
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(expected);
        let mut row_of: Vec<Option<usize>> = Vec::with_capacity(expected);
        for (i, item) in items.enumerate() {
            let outcome = item
                .and_then(|(s, json)| {
                    // the row's form is taken before validation takes the shipment
                    let row = rows.add(&s, json)?;
                    let valid = quoting::validate(&ctx, s.into_owned())?;
                    Ok((quoting::price(&ctx, &valid, profile.markup_percent, &mut buf)?, row))
                })
                .map_err(|e| e.within(&format!("shipments[{i}]")));
            let (outcome, row) = match outcome {
                Ok((p, row)) => (Ok(p), Some(row)),
                Err(e) => (Err(e), None),
            };
            outcomes.push(outcome);
            row_of.push(row);
        }
        if !whole() {
            return Ok(None);
        }
        let now = self.clock.now();
        let quotes: usize = outcomes.iter().map(|o| o.as_ref().map_or(0, |p| p.quotes.len())).sum();
        self.write(|tx| {
            quoting::number(tx, outcomes.iter_mut().filter_map(|o| o.as_mut().ok()).collect())?;
            let (outcomes, rows) = (&outcomes, &rows);
            let store = || {
                let stored = outcomes.iter().zip(&row_of).filter_map(|(o, row)| Some((o.as_ref().ok()?, (*row)?)));
                let stored = stored.map(|(priced, row)| Ok(ToStore { shipment: rows.get(row)?, priced })).collect::<Result<Vec<_>>>()?;
                quoting::store(tx, customer_id, now, stored)
            };
            store_and_answer(quotes >= ANSWER_APART_FROM, store, || answer(outcomes))
        })
        .map(Some)
    }

    /// Single-shipment quote (DECISIONS 9), `POST .../quote`: one quote when carrier,
    /// service and package type are all named, else the quotes and quote errors.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; the shipment's error (with field paths) when
    /// it cannot be quoted at all; when all three are named, the reason that one service
    /// could not be quoted.
    pub fn quote(&self, customer_id: &str, shipment: &wire::QuoteShipment) -> Result<wire::QuoteAnswer> {
        let mut response = self.quote_items(customer_id, vec![Ok((Cow::Borrowed(shipment), None))], typed_answer)?;
        let result = response.results.pop().ok_or_else(|| Error::internal("a quote request produced no result"))?;
        if let (Some(error), Some(category)) = (result.error, result.error_category) {
            let category = crate::error::category_from_code(&category);
            let details: Vec<crate::FieldError> = result
                .details
                .unwrap_or_default()
                .into_iter()
                .map(|d| crate::FieldError {
                    field: d.field.strip_prefix("shipments[0].").unwrap_or(&d.field).to_string(),
                    message: d.message,
                })
                .collect();
            return Err(if details.is_empty() {
                Error::new(category, error.replace("shipments[0].", ""))
            } else {
                Error::fields(category, details)
            });
        }
        let mut quotes = result.quotes.unwrap_or_default();
        let errors = result.quote_errors.unwrap_or_default();
        let all_named = shipment.carrier_code.is_some() && shipment.service_code.is_some() && shipment.package_type_code.is_some();
        if all_named {
            if let Some(q) = quotes.pop() {
                return Ok(wire::QuoteAnswer::One(Box::new(q)));
            }
            let e = errors
                .into_iter()
                .next()
                .ok_or_else(|| Error::new(ErrorCategory::ServiceNotAvailable, "The named service could not be quoted."))?;
            return Err(Error::new(crate::error::category_from_code(&e.error_category), e.error));
        }
        Ok(wire::QuoteAnswer::Many(wire::QuotesResponse { quotes, quote_errors: errors }))
    }

    /// A quote of the customer by id, with the shipment it was made for.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, or a quote that is unknown or another
    /// customer's.
    pub fn stored_quote(&self, customer_id: &str, quote_id: i64) -> Result<quoting::StoredQuote> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            quoting::find(conn, customer_id, quote_id)?.ok_or_else(|| Error::not_found("quote", &quote_id.to_string()))
        })
    }

    /// Book shipment (4.5), `POST .../shipments`: one transaction for the shipment, its
    /// ledger entries, its first tracking event and its idempotency record.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or quote; `INVALID_REQUEST` naming each field
    /// at fault; `SERVICE_NOT_AVAILABLE` off the service's route; `QUOTE_EXPIRED`;
    /// `INSUFFICIENT_FUNDS` (nothing is written then); `CONFLICT` for an idempotency key
    /// reused with another payload.
    pub fn book_shipment(&self, customer_id: &str, req: &wire::BookShipmentRequest) -> Result<wire::BookShipmentResponse> {
        self.write_booking(customer_id, |tx, ctx| booking::book(tx, ctx, req))
    }

    /// Void shipment, `POST .../shipments/:bookNumber` `{"voided": true}`: refunds its
    /// prepay charge to the ledger.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment (or another customer's);
    /// `CONFLICT` when it is already voided.
    pub fn void_shipment(&self, customer_id: &str, book_number: &str, req: &wire::VoidRequest) -> Result<wire::VoidResponse> {
        let now = self.clock.now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            booking::void(tx, customer_id, book_number, req, now)
        })
    }

    /// Retrieve shipment, `GET .../shipments/:bookNumber` (fields as a search result).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment (or another customer's).
    pub fn shipment(&self, customer_id: &str, book_number: &str) -> Result<wire::ShipmentView> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            Ok(booking::find(conn, customer_id, book_number)?.view)
        })
    }

    /// List shipments, `GET .../shipments?minBookNumber=&limit=`: by book number from
    /// `min_book_number` (inclusive), at most `limit` (1 to 100).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a limit outside 1-100.
    pub fn shipments(&self, customer_id: &str, min_book_number: &str, limit: i64) -> Result<wire::ShipmentsResponse> {
        if !(1..=100).contains(&limit) {
            return Err(Error::invalid("limit", format!("expected a whole number from 1 to 100, found {limit}")));
        }
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            booking::list(conn, customer_id, min_book_number, limit)
        })
    }

    /// Retrieve label, `GET .../shipments/:bookNumber/label/:labelImageFormat`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment; `INVALID_REQUEST` for a format
    /// the carrier does not print.
    pub fn label(&self, customer_id: &str, book_number: &str, format: &str) -> Result<wire::LabelResponse> {
        let catalog = self.catalog();
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            booking::label(conn, &catalog, customer_id, book_number, format)
        })
    }

    /// Create batch, `POST .../batch` -> `{batchId}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn create_batch(&self, customer_id: &str, req: &wire::CreateBatchRequest) -> Result<wire::CreateBatchResponse> {
        let now = self.clock.now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            batches::create(tx, customer_id, req, now)
        })
    }

    /// Add quotes to batch, `POST .../batch/:batchId/quotes` `{quoteIds}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, batch or quote (or another customer's);
    /// `QUOTE_EXPIRED` for a quote older than 30 days; `CONFLICT` for a booked batch.
    pub fn add_quotes_to_batch(&self, customer_id: &str, batch_id: &str, req: &wire::AddQuotesRequest) -> Result<wire::Batch> {
        let now = self.clock.now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            batches::add_quotes(tx, customer_id, batch_id, req, now)
        })
    }

    /// Get batch, `GET .../batch/:batchId`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or batch.
    pub fn batch(&self, customer_id: &str, batch_id: &str) -> Result<wire::Batch> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            batches::get(conn, customer_id, batch_id)
        })
    }

    /// List batches, `GET .../batch`, newest first.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn batches(&self, customer_id: &str) -> Result<wire::BatchesResponse> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            batches::list(conn, customer_id)
        })
    }

    /// Delete batch, `DELETE .../batch/:batchId` (open batches only).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or batch; `CONFLICT` for a booked batch.
    pub fn delete_batch(&self, customer_id: &str, batch_id: &str) -> Result<wire::OkResponse> {
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            batches::delete(tx, customer_id, batch_id)
        })
    }

    /// Batch book, `POST .../batch-book` `{batchId}`: every quote booked at its price,
    /// each with its own ledger entry and labels, reported one by one.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or batch; `CONFLICT` for a booked batch.
    pub fn batch_book(&self, customer_id: &str, req: &wire::BatchBookRequest) -> Result<wire::BatchBookResponse> {
        self.write_booking(customer_id, |tx, ctx| batches::book(tx, ctx, req))
    }
}

/// The sequence counting rate imports: absent means the rates are the embedded default.
const RATE_REVISION: &str = "rate_revision";

/// The rate book of a database: the embedded default, built once per process and shared,
/// while nothing was imported; else loaded from its tables.
fn load_rate_book(conn: &Connection) -> Result<Arc<RateBook>> {
    static DEFAULT: OnceLock<std::result::Result<Arc<RateBook>, String>> = OnceLock::new();
    let imported: Option<i64> =
        conn.prepare_cached("SELECT last FROM id_sequences WHERE name = ?1")?.query_row([RATE_REVISION], |r| r.get(0)).optional()?;
    if imported.is_none() {
        return DEFAULT
            .get_or_init(|| RateBook::default_book().map(Arc::new).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| Error::internal(format!("the embedded rate book does not load: {e}")));
    }
    RateBook::load(conn).map(Arc::new).map_err(|e| Error::internal(format!("the stored rate book does not load: {e}")))
}

/// What became of one shipment of a quote request.
type Outcome<'c> = Result<quoting::Priced<'c>>;

/// A batch body this long or longer (about 50 plain shipments) is read on a thread of its
/// own while its shipments are priced (see `Shipping::batch_quote_read_apart`); below it,
/// starting the thread would cost more than it saves.
#[cfg(not(target_arch = "wasm32"))]
const READ_APART_FROM: usize = 32 * 1024;

/// A batch of this many quotes or more has its answer written on a thread of its own
/// while its rows are stored, where the target has threads (see [`store_and_answer`]):
/// about a tenth of a millisecond of writing, against the few hundredths that starting a
/// thread costs.
const ANSWER_APART_FROM: usize = 128;

/// Runs `store` and `answer`, on two threads when `apart` (and the target has threads),
/// else one after the other; the answer, when both succeed.
fn store_and_answer<A: Send>(apart: bool, store: impl FnOnce() -> Result<()>, answer: impl FnOnce() -> Result<A> + Send) -> Result<A> {
    #[cfg(not(target_arch = "wasm32"))]
    if apart {
        return std::thread::scope(|scope| {
            let answering = scope.spawn(answer);
            let stored = store();
            let answer = answering.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            stored.and(answer)
        });
    }
    #[cfg(target_arch = "wasm32")]
    let _ = apart;
    store()?;
    answer()
}

/// Shipments handed from the reading thread to the pricing one at a time: few hand-overs,
/// so that little time goes to waiting on them, and soon enough that pricing starts early.
#[cfg(not(target_arch = "wasm32"))]
const CHUNK: usize = 25;

/// Body of `POST .../batch-quote`, borrowing each shipment's JSON from the body (as
/// [`wire::BatchQuoteRequest`], without copying every shipment out of it).
#[derive(serde::Deserialize)]
struct BorrowedBatchQuoteRequest<'a> {
    #[serde(borrow)]
    shipments: Vec<&'a RawValue>,
}

/// The result of a failed shipment, as the answer shows it.
fn failed(shipment_index: usize, e: &Error) -> wire::ShipmentQuotes {
    wire::ShipmentQuotes {
        shipment_index,
        status: "error".into(),
        quotes: None,
        quote_errors: None,
        error: Some(e.message().to_string()),
        error_category: Some(e.category().code().to_string()),
        details: (!e.details().is_empty()).then(|| e.details().to_vec()),
    }
}

/// The batch answer as typed values.
fn typed_answer(outcomes: &[Outcome<'_>]) -> Result<wire::BatchQuoteResponse> {
    let results = outcomes
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Ok(p) => wire::ShipmentQuotes {
                shipment_index: i,
                status: "success".into(),
                quotes: Some(p.quotes.iter().map(quoting::PricedQuote::to_wire).collect()),
                quote_errors: Some(p.errors.clone()),
                error: None,
                error_category: None,
                details: None,
            },
            Err(e) => failed(i, e),
        })
        .collect();
    Ok(wire::BatchQuoteResponse { results })
}

/// The batch answer as JSON, the text of [`wire::BatchQuoteResponse`] (a test pins it
/// against [`typed_answer`] serialised), with each shipment's quotes written straight
/// into it from their rates and the catalog's names.
fn json_answer(outcomes: &[Outcome<'_>]) -> Result<String> {
    let size: usize = outcomes.iter().map(|o| o.as_ref().map_or(0, |p| quoting::quotes_json_size(&p.quotes)) + 100).sum();
    let mut out = String::with_capacity(size + 16);
    out.push_str("{\"results\":[");
    for (i, outcome) in outcomes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match outcome {
            Ok(p) => {
                out.push_str("{\"shipmentIndex\":");
                wire::push_int(&mut out, i as i64);
                out.push_str(",\"status\":\"success\",\"quotes\":");
                quoting::write_quotes_json(&mut out, &p.quotes);
                out.push_str(",\"quoteErrors\":");
                wire::write_quote_errors(&mut out, &p.errors);
                out.push('}');
            }
            Err(e) => out.push_str(&wire::to_json(&failed(i, e))?),
        }
    }
    out.push_str("]}");
    Ok(out)
}

fn check_batch_size(n: usize) -> Result<()> {
    if n > MAX_BATCH {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![crate::FieldError { field: "shipments".into(), message: format!("at most {MAX_BATCH} shipments per request, found {n}") }],
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::FixedClock;

    fn service() -> (Shipping, String) {
        let clock = Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap());
        let shipping = Shipping::builder().clock(clock).open().unwrap();
        let address = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
            "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
        let body = json!({"profileCode": "Retail", "email": "ann@example.com", "password": "glaze-and-fire",
            "mailingAddress": address, "billingAddress": address, "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}});
        let r = shipping.handle("POST", "/restapi/v1/customers", &body.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
        let id: Value = serde_json::from_str(&r.body).unwrap();
        (shipping, id["customerId"].as_str().unwrap().to_string())
    }

    fn shipments() -> Vec<Value> {
        let sender =
            json!({"name": "Ann Lee", "address1": "200 Market St", "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US"});
        let domestic = json!({"shipmentDate": "2026-11-23", "shipmentReference": "A", "sender": sender,
            "receiver": {"city": "Los Angeles", "state": "CA", "zip": "90012", "country": "US"}, "residential": true,
            "weightUnit": "lb", "dimUnit": "in", "currency": "EUR",
            "pieces": [{"weight": "31.5", "length": "30", "width": "20", "height": "12", "insuranceAmount": "250"}]});
        let envelope = json!({"shipmentDate": "2026-11-23", "shipmentReference": "B", "sender": sender,
            "receiver": {"city": "New York", "state": "NY", "zip": "10001", "country": "US"},
            "weightUnit": "oz", "dimUnit": null, "currency": "USD", "pieces": [{"weight": "6"}]});
        let abroad = json!({"shipmentDate": "2026-11-23", "shipmentReference": "C", "sender": sender,
            "receiver": {"city": "London", "zip": "SW1A 1AA", "country": "GB"},
            "weightUnit": "kg", "dimUnit": "cm", "currency": "GBP",
            "pieces": [{"weight": "1.2", "length": "30", "width": "20", "height": "10", "declaredValue": "80"}]});
        let mut named = abroad.clone();
        named["serviceCode"] = json!("parcel_ground");
        let mut invalid = domestic.clone();
        invalid["receiver"]["state"] = json!("Texas");
        vec![domestic, envelope, abroad, named, invalid]
    }

    /// The batch answer written from the stored quote JSON is, byte for byte, the typed
    /// answer serialised: quotes, quote errors and failed shipments alike.
    #[test]
    fn the_json_batch_answer_is_the_typed_answer_serialised() {
        let shipments = shipments();
        let (a, a_id) = service();
        let r = a.handle("POST", &format!("/restapi/v1/customers/{a_id}/batch-quote"), &json!({ "shipments": shipments }).to_string());
        assert_eq!(r.status, 200, "{}", r.body);

        let (b, b_id) = service();
        let typed: Vec<wire::QuoteShipment> = shipments[..4].iter().map(|s| serde_json::from_value(s.clone()).unwrap()).collect();
        let mut answer = b.batch_quote(&b_id, &typed).unwrap();
        let failed: Value = serde_json::from_str(&r.body).unwrap();
        answer.results.push(serde_json::from_value(failed["results"][4].clone()).unwrap());
        assert_eq!(r.body, wire::to_json(&answer).unwrap());

        let parsed: Value = serde_json::from_str(&r.body).unwrap();
        let results = parsed["results"].as_array().unwrap();
        assert!(results[0]["quotes"].as_array().unwrap().iter().any(|q| q["surcharges"].as_array().unwrap().len() > 1), "{}", r.body);
        assert!(!results[1]["quotes"].as_array().unwrap().is_empty(), "{}", r.body);
        assert!(results[3]["quotes"].as_array().unwrap().is_empty() && !results[3]["quoteErrors"].as_array().unwrap().is_empty());
        assert_eq!(results[4]["status"], "error");
    }

    /// The stored quotes are the quotes of the answer, found by id.
    #[test]
    fn a_stored_quote_is_the_quote_answered() {
        let (a, id) = service();
        let r = a.handle("POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &json!({ "shipments": shipments() }).to_string());
        let parsed: Value = serde_json::from_str(&r.body).unwrap();
        for result in parsed["results"].as_array().unwrap() {
            for q in result["quotes"].as_array().into_iter().flatten() {
                let stored = a.stored_quote(&id, q["quoteId"].as_i64().unwrap()).unwrap();
                assert_eq!(serde_json::to_value(&stored.quote).unwrap(), *q);
            }
        }
    }

    /// Rows of stored quotes.
    fn stored_rows(shipping: &Shipping) -> i64 {
        shipping.read(|conn| Ok(conn.query_row("SELECT count(*) FROM quoted_shipments", [], |r| r.get(0))?)).unwrap()
    }

    /// A batch of `n` shipments (those of [`shipments`] in turn), with `odd` put in at
    /// index `at` when given.
    fn long_body(n: usize, odd: Option<(usize, &str)>) -> String {
        let mut texts: Vec<String> = shipments().iter().cycle().take(n).map(Value::to_string).collect();
        // a name with an escape: read by serde within the one-pass reader
        texts[2] = texts[2].replace("Ann Lee", "Ann \\\"A\\\" Lee");
        if let Some((at, text)) = odd {
            texts[at] = text.to_string();
        }
        format!("{{\"shipments\": [{}]}}", texts.join(",\n"))
    }

    /// A long batch, read on a thread of its own while it is priced, is answered and
    /// stored exactly as when it is read first and priced after: in order, failed
    /// shipments included, and also when the one-pass reader gives up on a shipment late
    /// in the body (nothing of the first pass is stored then).
    #[test]
    fn a_long_batch_read_apart_is_answered_as_one_read_in_turn() {
        // a shipment that does not parse (a number for a text)
        let unreadable = shipments()[0].to_string().replacen("\"weightUnit\":\"lb\"", "\"weightUnit\":5", 1);
        assert_ne!(unreadable, shipments()[0].to_string());
        for (odd, stored) in [(None, 300), (Some((350, unreadable.as_str())), 299)] {
            let body = long_body(500, odd);
            assert!(body.len() >= READ_APART_FROM);
            let (a, a_id) = service();
            let (b, b_id) = service();
            let apart = a.batch_quote_json(&a_id, &body).unwrap();
            let in_turn = b.batch_quote_in_turn(&b_id, &body).unwrap();
            assert_eq!(apart, in_turn);
            assert_eq!((stored_rows(&a), stored_rows(&b)), (stored, stored));
            if odd.is_none() {
                // and as the typed answer of the same shipments, serialised
                let (c, c_id) = service();
                let request: Value = serde_json::from_str(&body).unwrap();
                let typed: Vec<wire::QuoteShipment> = serde_json::from_value(request["shipments"].clone()).unwrap();
                assert_eq!(apart, wire::to_json(&c.batch_quote(&c_id, &typed).unwrap()).unwrap());
            }
            let parsed: Value = serde_json::from_str(&apart).unwrap();
            let results = parsed["results"].as_array().unwrap();
            assert_eq!(results.len(), 500);
            assert!(results.iter().enumerate().all(|(i, r)| r["shipmentIndex"] == i));
            assert_eq!(results[4]["status"], "error");
            if odd.is_some() {
                assert_eq!(results[350]["status"], "error");
            }
        }
    }

    /// The errors of a long body come in the same order read apart as in turn: too many
    /// shipments, or a malformed body, before an unknown customer; nothing is stored.
    #[test]
    fn a_long_batch_read_apart_fails_as_one_read_in_turn() {
        let (a, id) = service();
        let too_many = long_body(501, None);
        let malformed = long_body(100, None).replacen("},", "}", 1);
        for body in [&too_many, &malformed] {
            assert!(body.len() >= READ_APART_FROM);
            for customer in [id.as_str(), "C-unknown"] {
                let apart = a.batch_quote_json(customer, body).unwrap_err();
                let in_turn = a.batch_quote_in_turn(customer, body).unwrap_err();
                assert_eq!(format!("{apart:?}"), format!("{in_turn:?}"));
                assert_ne!(apart.category(), ErrorCategory::NotFound, "{apart:?}");
            }
        }
        let apart = a.batch_quote_json("C-unknown", &long_body(100, None)).unwrap_err();
        assert_eq!(apart.category(), ErrorCategory::NotFound);
        assert_eq!(stored_rows(&a), 0);
    }

    /// Storing and answering side by side gives what one after the other gives: the
    /// answer when both succeed, else the first error, storing's before answering's.
    #[test]
    fn storing_and_answering_apart_is_as_in_turn() {
        let fail = |what: &str| Err::<(), _>(Error::internal(what));
        for apart in [false, true] {
            assert_eq!(store_and_answer(apart, || Ok(()), || Ok(7)).unwrap(), 7);
            let e = store_and_answer(apart, || fail("store"), || Ok(7)).unwrap_err();
            assert!(format!("{e:?}").contains("store"), "{e:?}");
            let e = store_and_answer(apart, || Ok(()), || fail("answer").map(|()| 7)).unwrap_err();
            assert!(format!("{e:?}").contains("answer"), "{e:?}");
            let e = store_and_answer(apart, || fail("store"), || fail("answer").map(|()| 7)).unwrap_err();
            assert!(format!("{e:?}").contains("store"), "{e:?}");
        }
    }
}
