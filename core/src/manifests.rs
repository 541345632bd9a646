//! Create manifest (4.10) and get it back: a PDF listing the shipments one carrier
//! takes from one shipper, with totals and a Code 128 barcode of the manifest id.
//!
//! A shipment is on at most one manifest (`CONFLICT` otherwise); the document is stored,
//! so `GET .../manifest/:manifestId` returns the same bytes.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::address::{self, AddressUse};
use crate::catalog::Catalog;
use crate::documents::{self, LabelAddress, ManifestData, ManifestLine};
use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::events;
use crate::pickups::{flat_address, listed, Listed};
use crate::store::{args, Read, Tx};
use crate::wire;

/// The data type of a manifest's `data`.
pub const MANIFEST_TYPE: &str = "application/pdf";

fn destination(a: &wire::ViewAddress) -> String {
    let mut place = a.city.clone();
    if !a.state.is_empty() {
        place = format!("{place}, {}", a.state);
    }
    if let Some(zip) = a.zip.as_deref().filter(|z| !z.is_empty()) {
        place = format!("{place} {zip}");
    }
    format!("{place}, {}", a.country)
}

/// The weight of a shipment (sum of its pieces) in its view's unit.
fn weight(view: &wire::ShipmentView) -> Decimal {
    view.pieces.iter().filter_map(|p| p.weight.parse::<Decimal>().ok()).sum()
}

fn lines(catalog: &Catalog, shipments: &[Listed]) -> (Vec<ManifestLine>, String) {
    let mut totals: Vec<(String, Decimal)> = Vec::new();
    let lines = shipments
        .iter()
        .map(|s| {
            let w = weight(&s.view);
            let unit = s.view.weight_unit.clone();
            match totals.iter_mut().find(|(u, _)| *u == unit) {
                Some((_, t)) => *t += w,
                None => totals.push((unit.clone(), w)),
            }
            ManifestLine {
                book_number: s.book_number.clone(),
                tracking_number: s.view.tracking_number.clone(),
                service_label: catalog.service(&s.service_code).map_or_else(|| s.service_code.clone(), |sv| sv.label.clone()),
                weight: format!("{} {unit}", w.normalize()),
                destination: destination(&s.view.receiver),
            }
        })
        .collect();
    let total = totals.iter().map(|(u, t)| format!("{} {u}", t.normalize())).collect::<Vec<_>>().join(" + ");
    (lines, total)
}

/// Create manifest (4.10) in `tx`.
pub(crate) fn create(
    tx: &Tx<'_>,
    catalog: &Catalog,
    customer_id: &str,
    req: &wire::CreateManifestRequest,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<wire::ManifestResponse> {
    let mut p = Problems::new();
    let shipments = listed(tx, catalog, &mut p, customer_id, &req.carrier_code, &req.book_numbers)?;
    let r = req;
    let wire_address = flat_address([&r.name, &r.company, &r.address1, &r.address2, &r.city, &r.state, &r.zip, &r.country, &r.phone]);
    let shipper = address::validate(&mut p, "", &wire_address, AddressUse::Manifest);
    if req.state.is_none() && !matches!(shipper.country.as_str(), "US" | "CA") {
        p.push("state", "is required (may be empty outside US and CA)");
    }
    p.finish()?;

    let mut on = tx.query("SELECT manifest_id FROM manifest_shipments WHERE customer_id = ?2 AND book_number = ?1")?;
    let mut conflicts = Vec::new();
    for (i, s) in shipments.iter().enumerate() {
        if let Some(id) = on.row(args![s.book_number.as_str(), customer_id], |r| r.get::<String>(0))? {
            conflicts.push(FieldError {
                field: format!("bookNumbers[{i}]"),
                message: format!("shipment {} is already on manifest {id}", s.book_number),
            });
        }
    }
    if !conflicts.is_empty() {
        return Err(Error::fields(ErrorCategory::Conflict, conflicts));
    }

    let id = format!("M{:07}", crate::store::next_id(tx, "manifest")?);
    let carrier = req.carrier_code.trim();
    let carrier_label = catalog.carrier(carrier).map_or_else(|| carrier.to_string(), |c| c.label.clone());
    let (lines, total_weight) = lines(catalog, &shipments);
    let data = ManifestData {
        manifest_id: id.clone(),
        carrier_label,
        created: today,
        shipper: LabelAddress {
            name: shipper.name.to_string(),
            company: shipper.company.to_string(),
            address1: shipper.address1.to_string(),
            address2: shipper.address2.to_string(),
            city: shipper.city.to_string(),
            state: shipper.state.to_string(),
            zip: shipper.zip.as_deref().unwrap_or_default().to_string(),
            country: shipper.country.to_string(),
            phone: shipper.phone.to_string(),
        },
        lines,
        total_weight,
    };
    let pdf =
        documents::render_manifest_pdf(&data).map_err(|e| Error::internal(format!("could not render the manifest: {e}")).with_source(e))?;
    tx.execute(
        "INSERT INTO manifests (id, customer_id, carrier_code, shipper, document_type, document, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        args![id, customer_id, carrier, wire::to_json(&shipper)?, MANIFEST_TYPE, pdf, crate::dates::timestamp(now)],
    )?;
    let mut stmt =
        tx.statement("INSERT INTO manifest_shipments (manifest_id, position, book_number, customer_id) VALUES (?1, ?2, ?3, ?4)")?;
    for (i, s) in shipments.iter().enumerate() {
        stmt.execute(args![id, i64::try_from(i).unwrap_or(i64::MAX), s.book_number, customer_id])?;
    }
    let manifest = wire::ManifestResponse {
        manifest_id: id,
        kind: MANIFEST_TYPE.to_string(),
        data: crate::documents::base64(&pdf),
        book_numbers: shipments.into_iter().map(|s| s.book_number).collect(),
    };
    events::append(tx, customer_id, events::Type::ManifestCreated, &manifest.manifest_id, now, &manifest)?;
    Ok(manifest)
}

/// The customer's manifest `id`, or `NOT_FOUND`.
pub(crate) fn get(conn: &Read<'_>, customer_id: &str, id: &str) -> Result<wire::ManifestResponse> {
    let row: Option<(String, Vec<u8>)> =
        conn.row("SELECT document_type, document FROM manifests WHERE id = ?1 AND customer_id = ?2", args![id, customer_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let (kind, pdf) = row.ok_or_else(|| Error::not_found("manifest", id))?;
    let book_numbers = conn.rows(
        "SELECT book_number FROM manifest_shipments WHERE customer_id = ?2 AND manifest_id = ?1 ORDER BY position",
        args![id, customer_id],
        |r| r.get(0),
    )?;
    Ok(wire::ManifestResponse { manifest_id: id.to_string(), kind, data: crate::documents::base64(&pdf), book_numbers })
}
