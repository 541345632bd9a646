//! Catalog views (4.4, 4.13), integrated quoting options (4.8), provider accounts (4.11)
//! and integrations.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::bounded;
use crate::limits::MAX_QUOTING_OPTIONS;
use crate::secrets::Secret;

/// Answer of `GET .../services` (4.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ServicesResponse {
    /// The services the customer's profile offers.
    pub services: Vec<ServiceEntry>,
}

/// One service of list services.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ServiceEntry {
    /// Carrier code.
    pub carrier_code: String,
    /// Carrier name.
    pub carrier_label: String,
    /// Service code.
    pub service_code: String,
    /// Service name.
    pub service_label: String,
    /// `ground` or `express` (an extension, DECISIONS 4).
    pub family: String,
    /// True for inbound services (country lists then name sender countries).
    pub inbound: bool,
    /// Complete list of supported countries, or null.
    pub supported_countries: Option<Vec<String>>,
    /// Countries not supported (all others are), or null.
    pub unsupported_countries: Option<Vec<String>>,
    /// Signature options of the service.
    pub signature_options: Vec<SignatureOptionEntry>,
    /// Dangerous goods codes, comma separated, or null.
    pub supported_dangerous_goods_codes: Option<String>,
    /// The same value under the spelling one table of the interface uses.
    pub supported_dangerous_good_codes: Option<String>,
    /// Package types of the service.
    pub package_types: Vec<PackageTypeEntry>,
}

/// One signature option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SignatureOptionEntry {
    /// Code to send as `signatureOptionCode`.
    pub signature_option_code: String,
    /// Name for people.
    pub signature_option_label: String,
}

/// One package type of a service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PackageTypeEntry {
    /// Package type code.
    pub package_type_code: String,
    /// Name for people.
    pub package_type_label: String,
    /// True if several pieces may be shipped together.
    pub multipiece_supported: bool,
    /// `lb` or `kg`.
    pub weight_unit: String,
    /// Maximum weight per piece, decimal string.
    pub max_weight_per_piece: String,
    /// `preset`, `envelope` or `custom`.
    pub dim_type: String,
    /// `in` or `cm` for preset types, else null.
    pub dim_unit: Option<String>,
    /// Preset length, or null.
    pub preset_length: Option<String>,
    /// Preset width, or null.
    pub preset_width: Option<String>,
    /// Preset height, or null.
    pub preset_height: Option<String>,
}

/// Answer of regional shipment types (4.13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RegionalShipmentTypesResponse {
    /// Service codes that deliver to the postal code.
    pub services: Vec<String>,
}

/// Body and answer of integrated quoting options (4.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IntegratedQuotingOptions {
    /// The options, in the customer's order.
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_QUOTING_OPTIONS>")]
    pub integrated_quoting_options: Vec<IntegratedQuotingOption>,
}

/// A named combination of carrier, service and package type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IntegratedQuotingOption {
    /// The name the customer chose.
    pub name: String,
    /// Carrier code.
    pub carrier_code: String,
    /// Service code.
    pub service_code: String,
    /// Package type code.
    pub package_type_code: String,
}

/// Answer of list provider accounts (4.11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProviderAccountsResponse {
    /// The customer's carrier accounts.
    pub provider_accounts: Vec<ProviderAccount>,
}

/// A carrier account with its credential values masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProviderAccount {
    /// Account id.
    pub id: String,
    /// Carrier code.
    pub provider_code: String,
    /// Field names with masked values.
    pub account_fields: BTreeMap<String, String>,
}

/// Body of `PUT .../provider-accounts/:providerCode`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PutProviderAccountRequest {
    /// The carrier's account fields, values in clear (stored, sealed when the service
    /// has a key, never returned). A value of `********`, the mask that list shows,
    /// keeps the stored one.
    #[cfg_attr(feature = "typescript", ts(type = "{ [key in string]: string }"))]
    pub account_fields: BTreeMap<String, Secret>,
}

/// Body of `POST .../integrations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CreateIntegrationRequest {
    /// Name of the integration.
    pub name: String,
}

/// Answer of create integration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CreateIntegrationResponse {
    /// The new integration's id.
    pub integration_id: String,
}
