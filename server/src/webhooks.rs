//! The deliverer of webhooks: posts each customer's events to its endpoints, in order,
//! signed per Standard Webhooks (see `consign::Shipping::claim_webhook_deliveries`).
//!
//! A task of the runtime wakes after each write the server answered (it may have written
//! events; at most once per [`SETTLE`]), after each attempt (the endpoint's next event
//! goes at once), and at least every [`POLL`] for retries that fell due and for events
//! other processes committed. It first asks a reader whether
//! anything is due, so that a server without endpoints adds no write; then it claims the
//! due messages through the writer (on PostgreSQL, on a connection of the pool), at most
//! [`MAX_IN_FLIGHT`] at once, one per endpoint and a few per customer
//! ([`consign::WEBHOOK_CLAIMS_PER_CUSTOMER`], so that a customer's slow endpoints do not
//! hold every slot), and posts each on a task of its own within
//! [`crate::Config::webhook_timeout`]. The attempt is recorded through the writer too:
//! the cursor moves on a 2xx, else the retry is scheduled. A claim holds its endpoint
//! for the timeout and [`LEASE_MARGIN`] more: should the server die before it records
//! the attempt, the message is claimed again after that, with the same `webhook-id`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use consign::{Shipping, WebhookAttempt, WebhookDelivery};
use tokio::sync::{Notify, Semaphore};

use crate::outbound::Outbound;
use crate::writer::{Closed, Work};
use crate::App;

/// The most time between two looks for due deliveries.
pub const POLL: Duration = Duration::from_secs(1);

/// The least time between two looks, however often writes wake the deliverer.
pub const SETTLE: Duration = Duration::from_millis(100);

/// Deliveries posted at once, by the whole server.
pub const MAX_IN_FLIGHT: usize = 64;

/// How much longer than an attempt's timeout a claim holds its endpoint.
pub const LEASE_MARGIN: Duration = Duration::from_secs(15);

/// The tenant of the deliverer's writes in the writer's queue: no API key is it.
const TENANT: &str = "\u{1}webhooks";

/// Delivers until the server's runtime stops.
pub(crate) async fn deliver(app: Arc<App>, outbound: Arc<Outbound>, timeout: Duration, wake: Arc<Notify>) {
    let slots = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    // An attempt that ended wakes the next look at once: the endpoint's next event
    // waits for no write.
    let ended = Arc::new(Notify::new());
    let lease = timeout + LEASE_MARGIN;
    loop {
        let free = slots.available_permits();
        if free > 0 && due(&app).await {
            match claim(&app, lease, free).await {
                Ok(deliveries) => {
                    for delivery in deliveries {
                        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { return };
                        let (app, outbound, ended) = (Arc::clone(&app), Arc::clone(&outbound), Arc::clone(&ended));
                        tokio::spawn(async move {
                            attempt(&app, &outbound, delivery).await;
                            drop(slot);
                            ended.notify_one();
                        });
                    }
                }
                Err(Closed) => return,
            }
        }
        tokio::select! {
            () = ended.notified() => {}
            () = tokio::time::sleep(POLL) => {}
            () = wake.notified() => tokio::time::sleep(SETTLE).await,
        }
    }
}

/// Whether a message is due, read on a service of the pool (false when none is free
/// or the read fails: the next look tries again).
async fn due(app: &Arc<App>) -> bool {
    let Some(lease) = app.pool.lease().await else { return false };
    tokio::task::spawn_blocking(move || lease.shipping.as_deref().is_some_and(|s| s.webhook_deliveries_due().unwrap_or(false)))
        .await
        .unwrap_or(false)
}

/// Claims at most `at_most` due messages through the writer.
async fn claim(app: &Arc<App>, lease: Duration, at_most: usize) -> Result<Vec<WebhookDelivery>, Closed> {
    let (claimed, taken) = tokio::sync::oneshot::channel();
    let work: Work = Box::new(move |s: &Shipping| match s.claim_webhook_deliveries(lease, at_most) {
        Ok(deliveries) => {
            let _ = claimed.send(deliveries);
            ok()
        }
        Err(e) => consign::Response::error(&e),
    });
    app.writes.run(TENANT, 1, work).await?;
    Ok(taken.await.unwrap_or_default())
}

/// Posts `delivery` and records the attempt through the writer.
async fn attempt(app: &Arc<App>, outbound: &Outbound, delivery: WebhookDelivery) {
    let start = Instant::now();
    let posted = outbound.post(&delivery.url, &delivery.headers, delivery.content_type, delivery.body.clone()).await;
    let duration_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let attempt = match posted {
        Ok(status) => WebhookAttempt { status: Some(status), error: None, duration_ms },
        Err(failure) => WebhookAttempt { status: None, error: Some(failure.0), duration_ms },
    };
    let work: Work = Box::new(move |s: &Shipping| match s.record_webhook_attempt(&delivery, &attempt) {
        Ok(()) => ok(),
        Err(e) => consign::Response::error(&e),
    });
    // A record that fails (or a server stopping) leaves the claim to expire: the
    // message is delivered again, with the same `webhook-id`.
    let _ = app.writes.run(TENANT, 1, work).await;
}

fn ok() -> consign::Response {
    consign::Response { status: 200, body: String::new(), retry_after: None, document: None }
}
