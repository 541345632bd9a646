//! The webhook endpoints' types (`consign serve` delivers to them): an endpoint, its
//! secret, a page of its delivery attempts.

use serde::{Deserialize, Serialize};

/// Create or update a webhook endpoint (`POST` or `PUT .../webhooks`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookRequest {
    /// Where deliveries are posted: an `https://` URL (`http://` only on a server started
    /// with `--allow-http-webhooks`).
    pub url: String,
    /// The event types delivered: names such as `shipment.booked`, or `prefix.*`; every
    /// type when empty or missing.
    #[serde(default)]
    pub types: Vec<String>,
    /// A note for the customer's own use.
    #[serde(default)]
    pub description: String,
    /// `standard` (Standard Webhooks JSON, the default) or `xps` (the form-encoded order
    /// callback of XPS's Webhooks integration).
    #[serde(default)]
    pub format: Option<String>,
    /// Update only: `true` re-enables a disabled endpoint (its failed attempts are
    /// forgotten), `false` disables it; unchanged when missing.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// A webhook endpoint, as get webhook answers it (never with its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// The endpoint's id, `wh_` and 20 hexadecimal digits.
    pub webhook_id: String,
    /// Where deliveries are posted.
    pub url: String,
    /// The customer's note.
    pub description: String,
    /// The event types delivered, as sent; empty: every type.
    pub types: Vec<String>,
    /// `standard` or `xps`.
    pub format: String,
    /// `enabled` or `disabled`.
    pub status: String,
    /// Why the endpoint is disabled, or null.
    pub disabled_reason: Option<String>,
    /// The number of the last event delivered to the endpoint (or passed by its type
    /// filter): the events after it are delivered next, in order.
    pub cursor: String,
    /// Failed attempts at delivering the next event.
    pub failed_attempts: i64,
    /// When the next event's next attempt is due, after a failed one; else null.
    pub next_attempt_at: Option<String>,
    /// When the endpoint was created (RFC 3339, UTC).
    pub created_at: String,
    /// When the customer last changed the endpoint.
    pub updated_at: String,
}

/// Create webhook's answer (201): the endpoint and its signing secret, shown only here
/// (and by rotate secret).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedWebhook {
    /// The endpoint.
    #[serde(flatten)]
    pub webhook: Webhook,
    /// The signing secret: `whsec_` and 32 bytes in base64.
    pub secret: String,
}

/// Rotate secret's answer: the new signing secret, shown only here.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSecret {
    /// The endpoint's id.
    pub webhook_id: String,
    /// The new signing secret; the previous one signs too until `previousValidUntil`.
    pub secret: String,
    /// When the previous secret stops signing deliveries (RFC 3339, UTC).
    pub previous_valid_until: String,
}

/// List webhooks' answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhooksResponse {
    /// The customer's endpoints, oldest first.
    pub webhooks: Vec<Webhook>,
}

/// One attempt at delivering a message to an endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    /// The message's `webhook-id`: the same on every attempt of one event.
    pub message_id: String,
    /// The event delivered, or null for a test message.
    pub event_id: Option<i64>,
    /// The attempt's number for this message, from 1.
    pub attempt: i64,
    /// When the attempt ended and was recorded (RFC 3339, UTC).
    pub attempted_at: String,
    /// The endpoint's HTTP status, or null when it did not answer.
    pub status_code: Option<i64>,
    /// Why there is no answer or it failed, or null on success.
    pub error: Option<String>,
    /// How long the attempt took, in milliseconds.
    pub duration_ms: i64,
}

/// List deliveries' answer: the newest attempts first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeliveriesResponse {
    /// The attempts, newest first.
    pub deliveries: Vec<WebhookDelivery>,
}

/// Replay (`POST .../webhooks/:webhookId/replay`): deliver again, in order, every event
/// after the cursor `after`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayWebhookRequest {
    /// A cursor of the event feed: the events after it are delivered again.
    pub after: String,
}
