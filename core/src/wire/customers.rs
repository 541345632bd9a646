//! Customers (4.9), connect-customer, payment method (4.12) and the prepay ledger.

use serde::{Deserialize, Serialize};

use super::numbers::Dec;
use super::WireAddress;
use crate::secrets::Secret;

/// Body of `POST /restapi/v1/customers` (4.9).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct CreateCustomerRequest {
    /// The profile used as a template, usually `Default`.
    pub profile_code: String,
    /// E-mail, also the login.
    pub email: String,
    /// Password (stored only as an argon2id hash).
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub password: Secret,
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
    /// Optional campaign attribution (an empty string counts as absent).
    #[serde(default, deserialize_with = "utm_or_empty")]
    pub utm: Option<Utm>,
    /// Expected monthly volume, free text.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub monthly_volume: Option<String>,
}

/// `utm` as an object, or null or `""` for none (DECISIONS 1: an empty string for an
/// optional value means null).
fn utm_or_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Utm>, D::Error> {
    struct UtmVisitor;
    impl<'de> serde::de::Visitor<'de> for UtmVisitor {
        type Value = Option<Utm>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object of campaign fields, null or an empty string")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v.trim().is_empty() {
                Ok(None)
            } else {
                Err(E::invalid_type(serde::de::Unexpected::Str(v), &self))
            }
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            Utm::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    d.deserialize_any(UtmVisitor)
}

/// `prepaySettings` of a new customer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PrepaySettings {
    /// Preferred minimum balance.
    #[cfg_attr(feature = "typescript", ts(type = "Decimal"))]
    pub minimum_balance: Dec,
    /// Amount billed at creation and whenever the balance falls below the minimum.
    #[cfg_attr(feature = "typescript", ts(type = "Decimal"))]
    pub recharge_amount: Dec,
}

/// Campaign attribution of a new customer; every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CustomerIdResponse {
    /// The customer's id.
    pub customer_id: String,
}

/// Body of `POST /restapi/v1/connect-customer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConnectCustomerRequest {
    /// The customer's e-mail.
    pub username: String,
    /// The customer's password.
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub password: Secret,
}

/// Answer of `GET .../partners`: the partner keys connected to the customer (an
/// extension; DECISIONS, "Logins").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PartnersResponse {
    /// The partners, in the order of their key ids.
    pub partners: Vec<Partner>,
}

/// A partner key connected to a customer: never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Partner {
    /// The key's id, e.g. `K0000001`.
    pub key_id: String,
    /// The name the key was given at creation, possibly empty.
    pub name: String,
    /// When the key created or connected the customer (RFC 3339, UTC); null for a link
    /// older than the database's schema 9.
    pub connected_at: Option<String>,
    /// When the key was revoked, or null: a revoked key acts for no one.
    pub revoked_at: Option<String>,
}

/// Body of `POST .../paymentMethod` (4.12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UpdatePaymentMethodRequest {
    /// Billing address of the card.
    pub billing_address: WireAddress,
    /// The token from the secure payment form.
    pub payment_method: PaymentMethod,
}

/// The payment-method token; card data never reaches the service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PaymentMethod {
    /// Must be `processorCardToken` (alias `<processor>CardToken`).
    pub payment_method_type: String,
    /// The token id (alias `<processor>CardTokenId`).
    #[serde(alias = "<processor>CardTokenId")]
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub processor_card_token_id: Secret,
}

/// Answer of `GET .../prepay`: the balance, settings and ledger, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn utm(json: &str) -> Result<Option<Utm>, crate::Error> {
        #[derive(Deserialize)]
        struct Holder {
            #[serde(default, deserialize_with = "utm_or_empty")]
            utm: Option<Utm>,
        }
        crate::wire::parse_body::<Holder>(&format!("{{\"utm\": {json}}}")).map(|h| h.utm)
    }

    #[test]
    fn utm_is_an_object_or_empty() {
        assert_eq!(utm("\"\"").unwrap(), None);
        assert_eq!(utm("null").unwrap(), None);
        assert_eq!(utm("{\"source\": \"news\"}").unwrap().and_then(|u| u.source), Some("news".into()));
        assert!(utm("\"newsletter\"").is_err());
        assert!(utm("{\"source\": 5}").is_err());
        assert!(utm("[\"a\"]").is_err());
    }
}
