//! Customers (4.9), connect-customer, payment method (4.12) and the prepay ledger.

use serde::{Deserialize, Serialize};

use super::numbers::Dec;
use super::WireAddress;

/// Body of `POST /restapi/v1/customers` (4.9).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateCustomerRequest {
    /// The profile used as a template, usually `Default`.
    pub profile_code: String,
    /// E-mail, also the login.
    pub email: String,
    /// Password (stored only as an argon2id hash).
    pub password: String,
    /// Optional three-character franchise code.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub franchise_id: Option<String>,
    /// Mailing address; every field required.
    pub mailing_address: WireAddress,
    /// Billing address; every field required.
    pub billing_address: WireAddress,
    /// Minimum balance and recharge amount.
    pub prepay_settings: PrepaySettings,
    /// Optional sales rep name.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub sales_rep: Option<String>,
    /// Optional campaign attribution.
    #[serde(default)]
    pub utm: Option<Utm>,
    /// Expected monthly volume, free text.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub monthly_volume: Option<String>,
}

/// `prepaySettings` of a new customer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepaySettings {
    /// Preferred minimum balance.
    pub minimum_balance: Dec,
    /// Amount billed at creation and whenever the balance falls below the minimum.
    pub recharge_amount: Dec,
}

/// Campaign attribution of a new customer; every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Utm {
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub medium: Option<String>,
    #[serde(default)]
    pub campaign: Option<String>,
    #[serde(default)]
    pub term: Option<String>,
    #[serde(default)]
    pub content: Option<String>,
}

/// Answer of create customer and connect customer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerIdResponse {
    /// The customer's id.
    pub customer_id: String,
}

/// Body of `POST /restapi/v1/connect-customer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectCustomerRequest {
    /// The customer's e-mail.
    pub username: String,
    /// The customer's password.
    pub password: String,
}

/// Body of `POST .../paymentMethod` (4.12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdatePaymentMethodRequest {
    /// Billing address of the card.
    pub billing_address: WireAddress,
    /// The token from the secure payment form.
    pub payment_method: PaymentMethod,
}

/// The payment-method token; card data never reaches the service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentMethod {
    /// Must be `processorCardToken` (alias `<processor>CardToken`).
    pub payment_method_type: String,
    /// The token id (alias `<processor>CardTokenId`).
    #[serde(alias = "<processor>CardTokenId")]
    pub processor_card_token_id: String,
}

/// Answer of `GET .../prepay`: the balance, settings and ledger, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepayResponse {
    /// Current balance, 2 decimals.
    pub balance: String,
    /// Account currency (USD).
    pub currency: String,
    /// Minimum balance setting, 2 decimals.
    pub minimum_balance: String,
    /// Recharge amount setting, 2 decimals.
    pub recharge_amount: String,
    /// Ledger entries, newest first.
    pub entries: Vec<LedgerEntry>,
}

/// One ledger entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    /// Entry id.
    pub id: i64,
    /// `recharge`, `charge` or `refund`.
    pub kind: String,
    /// Signed amount, 2 decimals (charges negative).
    pub amount: String,
    /// Balance after this entry, 2 decimals.
    pub balance_after: String,
    /// When the entry was made (RFC 3339, UTC).
    pub created_at: String,
    /// What the entry is for (a book number, `account opened`, ...).
    pub reference: String,
}
