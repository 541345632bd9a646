//! Batch quotes: priced on the reader pool, where requests run in parallel, and only
//! stored on the writer, so that a large batch holds the writer for its inserts alone
//! (`consign::Shipping::prepare_as`). With an `Idempotency-Key`, a kept answer is given
//! from the reader, and the quotes are stored with their answer in one transaction.
//!
//! A single quote (which core could price in two steps too, `consign::Operation::prices`)
//! goes to the writer whole: pricing one shipment there costs less than the hops to a
//! reader and back, which took a third of its throughput over HTTP
//! (docs/PERFORMANCE.md, "Over HTTP").

use std::sync::Arc;

use consign::Prepared;

use crate::writer::{Call, Writes, ROWS_PER_UNIT};
use crate::Pool;

/// True for the batch quote, which [`answer`] serves: of the operations priced before
/// they write, the one whose pricing is worth the hops to a reader (see the module docs).
pub(crate) fn serves(operation: &consign::Operation) -> bool {
    operation.prices() && operation.name() == "batchQuote"
}

/// The answer to a batch quote request `call`: priced on a service of `pool`, stored through
/// `writes` as a write of the call's key. `None` when the work failed unexpectedly.
pub(crate) async fn answer(pool: &Arc<Pool>, writes: &Writes, call: Call) -> Option<consign::Response> {
    let lease = pool.lease().await?;
    let (key, method, target, once, prepared) = tokio::task::spawn_blocking(move || {
        let shipping = lease.shipping.as_ref()?;
        let prepared = match call.caller(shipping) {
            Ok(caller) => match call.once.as_ref().and_then(|once| shipping.kept_answer(&caller, once, &call.method, &call.target)) {
                // A retry with its Idempotency-Key is answered as before, not priced again.
                Some(kept) => Prepared::Answered(kept),
                None => shipping.prepare_as(&caller, &call.method, &call.target, &call.body),
            },
            Err(e) => Prepared::Answered(consign::Response::error(&e)),
        };
        Some((call.key, call.method, call.target, call.once, prepared))
    })
    .await
    .ok()
    .flatten()?;
    let priced = match prepared {
        Prepared::Answered(answer) => return Some(answer),
        Prepared::Priced(priced) => priced,
    };
    let cost = 1 + priced.rows() / ROWS_PER_UNIT;
    let tenant = key.clone();
    let store = Box::new(move |shipping: &consign::Shipping| match shipping.authenticate(&key) {
        // A key revoked since the pricing stores nothing.
        Ok(caller) => match &once {
            Some(once) => shipping.store_priced_once(&caller, once, &method, &target, priced),
            None => shipping.store_priced(priced),
        },
        Err(e) => consign::Response::error(&e),
    });
    writes.run(&tenant, cost, store).await.ok()
}
