//! Per-customer settings: provider accounts (4.11), integrations, integrated quoting
//! options (4.8) and regional shipment types (4.13).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::address::{is_us_zip, normalize_ca_postal};
use crate::catalog::{Catalog, Profile};
use crate::dates::timestamp;
use crate::error::{Error, Problems, Result};
use crate::limits::MAX_QUOTING_OPTIONS;
use crate::refdata;
use crate::secrets::{self, Sealer, MASK};
use crate::store;
use crate::store::{args, Read, Tx};
use crate::wire;

/// List provider accounts (4.11), values masked.
pub(crate) fn list_provider_accounts(conn: &Read<'_>, customer_id: &str) -> Result<wire::ProviderAccountsResponse> {
    let rows = conn.rows(
        "SELECT id, provider_code, fields FROM provider_accounts WHERE customer_id = ?1 ORDER BY created_at, id",
        args![customer_id],
        |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?, r.get::<String>(2)?)),
    )?;
    let provider_accounts = rows
        .into_iter()
        .map(|(id, provider_code, fields)| {
            let fields = stored_fields(&fields)?;
            Ok(wire::ProviderAccount { id, provider_code, account_fields: fields.into_keys().map(|k| (k, MASK.to_string())).collect() })
        })
        .collect::<Result<_>>()?;
    Ok(wire::ProviderAccountsResponse { provider_accounts })
}

/// Put provider account: creates the customer's account for a carrier, or replaces the
/// fields of the one with the same account number (the first field the carrier names).
/// A field sent as [`MASK`] (as list provider accounts shows it) keeps its stored value;
/// a masked account number stands for the customer's only account of the carrier.
/// Values are stored through [`secrets::store`]: sealed when the service has a key.
pub(crate) fn put_provider_account(
    tx: &Tx<'_>,
    catalog: &Catalog,
    sealer: Option<&Sealer>,
    customer_id: &str,
    provider_code: &str,
    req: &wire::PutProviderAccountRequest,
    now: DateTime<Utc>,
) -> Result<wire::ProviderAccount> {
    let carrier = catalog.carrier(provider_code).ok_or_else(|| Error::not_found("provider", provider_code))?;
    let mut p = Problems::new();
    for (name, value) in &req.account_fields {
        if !carrier.account_fields.contains(name) {
            p.push(
                format!("accountFields.{name}"),
                format!("is not a field of {provider_code} accounts; expected {}", carrier.account_fields.join(", ")),
            );
        } else if value.expose().trim().is_empty() {
            p.push(format!("accountFields.{name}"), "must not be empty");
        } else if value.expose().len() > 200 {
            p.push(format!("accountFields.{name}"), "must be at most 200 characters");
        }
    }
    for name in &carrier.account_fields {
        if !req.account_fields.contains_key(name) {
            p.push(format!("accountFields.{name}"), "is required");
        }
    }
    p.finish()?;
    let key_field = carrier.account_fields.first().map(String::as_str).unwrap_or_default();
    let sent_number = req.account_fields.get(key_field).map(|v| v.expose().trim()).unwrap_or_default();
    let existing = if sent_number == MASK {
        Some(only_account(tx, customer_id, provider_code, key_field)?)
    } else {
        tx.row(
            "SELECT id, fields FROM provider_accounts WHERE customer_id = ?1 AND provider_code = ?2 AND account_number = ?3",
            args![customer_id, provider_code, sent_number],
            |r| Ok(StoredAccount { id: r.get(0)?, fields: r.get(1)? }),
        )?
    };
    let stored_fields: BTreeMap<String, String> = match &existing {
        Some(account) => stored_fields(&account.fields)?,
        None => BTreeMap::new(),
    };
    let mut p = Problems::new();
    let mut fields = BTreeMap::new();
    for (name, value) in &req.account_fields {
        let stored = if value.expose().trim() == MASK {
            match stored_fields.get(name) {
                Some(kept) => secrets::keep(sealer, &secrets::account_field_context(customer_id, name), kept)?,
                None => {
                    p.push(format!("accountFields.{name}"), "is the mask of a stored value, and none is stored: send the value");
                    continue;
                }
            }
        } else {
            secrets::store(sealer, &secrets::account_field_context(customer_id, name), value.expose())?
        };
        fields.insert(name.clone(), stored);
    }
    p.finish()?;
    let fields = wire::to_json(&fields)?;
    let id = match existing {
        Some(account) => {
            tx.execute(
                "UPDATE provider_accounts SET fields = ?2 WHERE customer_id = ?3 AND id = ?1",
                args![&account.id, &fields, customer_id],
            )?;
            account.id
        }
        None => {
            let id = format!("PA{:07}", store::next_id(tx, "provider_account")?);
            tx.execute(
                "INSERT INTO provider_accounts (id, customer_id, provider_code, account_number, fields, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                args![id, customer_id, provider_code, sent_number, fields, timestamp(now)],
            )?;
            id
        }
    };
    Ok(wire::ProviderAccount {
        id,
        provider_code: provider_code.to_string(),
        account_fields: req.account_fields.keys().map(|k| (k.clone(), MASK.to_string())).collect(),
    })
}

/// A provider account as stored: its fields are JSON, each value sealed or plain.
struct StoredAccount {
    id: String,
    fields: String,
}

fn stored_fields(json: &str) -> Result<BTreeMap<String, String>> {
    serde_json::from_str(json).map_err(|e| Error::internal(format!("stored account fields are unreadable: {e}")).with_source(e))
}

/// The customer's one account of `provider_code`, which a masked account number
/// (`key_field`) stands for.
fn only_account(tx: &Tx<'_>, customer_id: &str, provider_code: &str, key_field: &str) -> Result<StoredAccount> {
    let mut accounts = tx.rows(
        "SELECT id, fields FROM provider_accounts WHERE customer_id = ?1 AND provider_code = ?2 ORDER BY id LIMIT 2",
        args![customer_id, provider_code],
        |r| Ok(StoredAccount { id: r.get(0)?, fields: r.get(1)? }),
    )?;
    let field = format!("accountFields.{key_field}");
    match accounts.len() {
        1 => Ok(accounts.remove(0)),
        0 => Err(Error::invalid(field, format!("is the mask, and this customer has no {provider_code} account to keep it from"))),
        _ => Err(Error::invalid(
            field,
            format!("is the mask, and this customer has several {provider_code} accounts: send the account number"),
        )),
    }
}

/// The fields of the customer's provider account `id` with their values in clear, for
/// the application that signs in to the carrier with them.
///
/// # Errors
/// `NOT_FOUND` for an unknown id or another customer's; `INTERNAL` when a value is
/// sealed and the service has no key or another one.
pub(crate) fn provider_account_fields(
    conn: &Read<'_>,
    sealer: Option<&Sealer>,
    customer_id: &str,
    id: &str,
) -> Result<BTreeMap<String, String>> {
    let fields: String = conn
        .row("SELECT fields FROM provider_accounts WHERE id = ?1 AND customer_id = ?2", args![id, customer_id], |r| r.get(0))?
        .ok_or_else(|| Error::not_found("provider account", id))?;
    stored_fields(&fields)?
        .into_iter()
        .map(|(name, stored)| {
            let value = secrets::reveal(sealer, &secrets::account_field_context(customer_id, &name), &stored)?;
            Ok((name, value))
        })
        .collect()
}

/// Delete provider account: 404 for an unknown id or another customer's.
pub(crate) fn delete_provider_account(tx: &Tx<'_>, customer_id: &str, id: &str) -> Result<wire::OkResponse> {
    let n = tx.execute("DELETE FROM provider_accounts WHERE id = ?1 AND customer_id = ?2", args![id, customer_id])?;
    if n == 0 {
        return Err(Error::not_found("provider account", id));
    }
    Ok(wire::OkResponse::OK)
}

/// The carrier of the customer's provider account `id`, if the customer has it.
pub(crate) fn provider_account_carrier(conn: &Read<'_>, customer_id: &str, id: &str) -> Result<Option<String>> {
    conn.row("SELECT provider_code FROM provider_accounts WHERE id = ?1 AND customer_id = ?2", args![id, customer_id], |r| r.get(0))
}

/// Ids of the customer's provider accounts.
pub(crate) fn provider_account_ids(conn: &Read<'_>, customer_id: &str) -> Result<Vec<String>> {
    conn.rows("SELECT id FROM provider_accounts WHERE customer_id = ?1", args![customer_id], |r| r.get(0))
}

/// Create integration: a REST API integration whose id orders are put under.
pub(crate) fn create_integration(
    tx: &Tx<'_>,
    customer_id: &str,
    req: &wire::CreateIntegrationRequest,
    now: DateTime<Utc>,
) -> Result<wire::CreateIntegrationResponse> {
    let name = req.name.trim();
    if name.is_empty() {
        return Err(Error::invalid("name", "must not be empty"));
    }
    if name.chars().count() > 100 {
        return Err(Error::invalid("name", "must be at most 100 characters"));
    }
    let id = format!("I{:07}", store::next_id(tx, "integration")?);
    tx.execute(
        "INSERT INTO integrations (id, customer_id, name, created_at) VALUES (?1, ?2, ?3, ?4)",
        args![id, customer_id, name, timestamp(now)],
    )?;
    Ok(wire::CreateIntegrationResponse { integration_id: id })
}

/// True if the customer owns integration `id`.
pub(crate) fn owns_integration(conn: &Read<'_>, customer_id: &str, id: &str) -> Result<bool> {
    Ok(conn.row("SELECT 1 FROM integrations WHERE id = ?1 AND customer_id = ?2", args![id, customer_id], |_| Ok(()))?.is_some())
}

/// List integrated quoting options (4.8).
pub(crate) fn quoting_options(conn: &Read<'_>, customer_id: &str) -> Result<wire::IntegratedQuotingOptions> {
    let integrated_quoting_options = conn.rows(
        "SELECT name, carrier_code, service_code, package_type_code FROM quoting_options WHERE customer_id = ?1 ORDER BY position",
        args![customer_id],
        |r| {
            Ok(wire::IntegratedQuotingOption {
                name: r.get(0)?,
                carrier_code: r.get(1)?,
                service_code: r.get(2)?,
                package_type_code: r.get(3)?,
            })
        },
    )?;
    Ok(wire::IntegratedQuotingOptions { integrated_quoting_options })
}

/// Set integrated quoting options: replaces the whole list; every entry must name a
/// carrier, one of its services the customer's profile offers, and a package type of it.
pub(crate) fn set_quoting_options(
    tx: &Tx<'_>,
    catalog: &Catalog,
    profile: &Profile,
    customer_id: &str,
    req: &wire::IntegratedQuotingOptions,
) -> Result<wire::IntegratedQuotingOptions> {
    let mut p = Problems::new();
    let mut names = std::collections::HashSet::new();
    if req.integrated_quoting_options.len() > MAX_QUOTING_OPTIONS {
        return Err(Error::new(
            crate::error::ErrorCategory::LimitExceeded,
            format!("At most {MAX_QUOTING_OPTIONS} integrated quoting options may be set."),
        ));
    }
    for (i, o) in req.integrated_quoting_options.iter().enumerate() {
        let at = |f: &str| format!("integratedQuotingOptions[{i}].{f}");
        let name = o.name.trim();
        if name.is_empty() {
            p.push(at("name"), "must not be empty");
        } else if !names.insert(name.to_lowercase()) {
            p.push(at("name"), format!("{name:?} is used by another option"));
        }
        if catalog.carrier(&o.carrier_code).is_none() {
            p.push(at("carrierCode"), format!("unknown carrier {:?}", o.carrier_code));
            continue;
        }
        let offered = catalog.services_for(profile).find(|s| s.code == o.service_code && s.carrier == o.carrier_code);
        match offered {
            None => {
                p.push(at("serviceCode"), format!("{:?} is not a service of {} offered to this customer", o.service_code, o.carrier_code))
            }
            Some(s) => {
                if !s.package_types.iter().any(|sp| sp.package_type == o.package_type_code) {
                    p.push(at("packageTypeCode"), format!("{:?} is not a package type of service {}", o.package_type_code, s.code));
                }
            }
        }
    }
    p.finish()?;
    tx.execute("DELETE FROM quoting_options WHERE customer_id = ?1", args![customer_id])?;
    let mut insert = tx.statement(
        "INSERT INTO quoting_options (customer_id, position, name, carrier_code, service_code, package_type_code) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (i, o) in req.integrated_quoting_options.iter().enumerate() {
        insert.execute(args![customer_id, i as i64, o.name.trim(), o.carrier_code, o.service_code, o.package_type_code])?;
    }
    quoting_options(tx, customer_id)
}

/// Regional shipment types (4.13): the codes of the services the customer's profile
/// offers that deliver, from the US, to `postal_code` (a US ZIP or a Canadian postal code).
pub(crate) fn regional_shipment_types(
    catalog: &Catalog,
    profile: &Profile,
    postal_code: &str,
) -> Result<wire::RegionalShipmentTypesResponse> {
    let code = postal_code.trim();
    let (country, state) = if is_us_zip(code) {
        let state =
            refdata::zip3_state(code).ok_or_else(|| Error::invalid("postalCode", format!("{code} is not in a ZIP3 prefix in use")))?;
        // Territories with their own ISO code are their own countries for the carriers.
        let country = if refdata::US_POSTAL_TERRITORIES.contains(&state) { state } else { "US" };
        (country, state)
    } else if normalize_ca_postal(code).is_some() {
        ("CA", "")
    } else {
        return Err(Error::invalid("postalCode", format!("expected a US ZIP code or a Canadian postal code, found {code:?}")));
    };
    let services = catalog.services_for(profile).filter(|s| catalog.serves(s, "US", country, state)).map(|s| s.code.clone()).collect();
    Ok(wire::RegionalShipmentTypesResponse { services })
}
