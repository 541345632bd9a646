//! A quoted shipment as it is stored: the JSON that serde_json writes for
//! [`QuoteShipment`], byte for byte (the tests pin it), written directly. Every shipment
//! of every batch quote is written so, and serde's derived serialiser (a formatted,
//! re-parsed number per decimal, an escaped key per field) cost most of a one-service
//! batch's margin against its target.

use compact_str::CompactString;

use super::numbers::{push_decimal, push_int};
use super::quotes::json_str_body;
use super::{Billing, CommercialInvoice, Dec, DutiableParty, Int, InvoiceItem, LineItem, Piece, QuoteShipment, TaxId, WireAddress};

/// The JSON serde_json writes for `shipment`.
pub(crate) fn shipment_json(shipment: &QuoteShipment) -> String {
    // about the size of a shipment with two addresses and one piece
    let mut out = String::with_capacity(1024);
    shipment.write(&mut out);
    out
}

/// A value written as serde_json writes it.
trait Json {
    fn write(&self, out: &mut String);
}

impl Json for str {
    fn write(&self, out: &mut String) {
        out.push('"');
        json_str_body(out, self);
        out.push('"');
    }
}

impl Json for String {
    fn write(&self, out: &mut String) {
        self.as_str().write(out);
    }
}

impl Json for CompactString {
    #[inline(never)]
    fn write(&self, out: &mut String) {
        self.as_str().write(out);
    }
}

impl Json for bool {
    fn write(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl Json for Dec {
    #[inline(never)]
    fn write(&self, out: &mut String) {
        push_decimal(out, self.0);
    }
}

impl Json for Int {
    fn write(&self, out: &mut String) {
        push_int(out, self.0);
    }
}

/// `null` for `None`, as serde writes it (so `Some(None)` is `null` too).
impl<T: Json> Json for Option<T> {
    #[inline(never)]
    fn write(&self, out: &mut String) {
        match self {
            Some(value) => value.write(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: Json> Json for Vec<T> {
    fn write(&self, out: &mut String) {
        out.push('[');
        for (i, value) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            value.write(out);
        }
        out.push(']');
    }
}

/// Appends the fields of an object, each `,"key":value` (the first after `$sep`):
/// each key with its punctuation is one literal, appended at once.
macro_rules! fields {
    ($out:ident, $sep:literal, $first_key:literal => $first:expr $(, $key:literal => $value:expr)* $(,)?) => {
        push_key($out, concat!($sep, "\"", $first_key, "\":"));
        Json::write($first, $out);
        $(
            push_key($out, concat!(",\"", $key, "\":"));
            Json::write($value, $out);
        )*
    };
}

/// Appends `key` (`,"name":`). Not inlined, as the writers of `Option` and
/// `CompactString`: inlined at each of the sixty-odd fields, they took 8 KB of the WASM
/// package, which has less room than that.
#[inline(never)]
fn push_key(out: &mut String, key: &str) {
    out.push_str(key);
}

impl Json for QuoteShipment {
    fn write(&self, out: &mut String) {
        // Its absent fields are left out, as its serde attributes say (what was absent
        // reads back absent); `first` is whether no field is written yet.
        let mut first = true;
        macro_rules! field {
            ($key:literal, $value:expr) => {{
                // `,"key":`, without the comma for the first field
                push_key(out, &concat!(",\"", $key, "\":")[usize::from(first)..]);
                first = false;
                Json::write($value, out);
            }};
        }
        macro_rules! optional {
            ($($key:literal => $value:expr),* $(,)?) => {$(
                if let Some(value) = $value {
                    field!($key, value);
                }
            )*};
        }
        out.push('{');
        optional!(
            "carrierCode" => &self.carrier_code,
            "serviceCode" => &self.service_code,
            "packageTypeCode" => &self.package_type_code,
            "shipmentDate" => &self.shipment_date,
            "shipmentReference" => &self.shipment_reference,
            "contentDescription" => &self.content_description,
        );
        field!("sender", &self.sender);
        field!("receiver", &self.receiver);
        optional!(
            "residential" => &self.residential,
            "signatureOptionCode" => &self.signature_option_code,
            "saturdayDelivery" => &self.saturday_delivery,
            "postalExpressAmDelivery" => &self.postal_express_am_delivery,
            "dangerousGoodsCode" => &self.dangerous_goods_code,
        );
        field!("weightUnit", &self.weight_unit);
        optional!("dimUnit" => &self.dim_unit, "currency" => &self.currency);
        field!("pieces", &self.pieces);
        optional!(
            "billing" => &self.billing,
            "providerAccountId" => &self.provider_account_id,
            "commercialInvoice" => &self.commercial_invoice,
            "deliverBy" => &self.deliver_by,
        );
        let _ = first; // (left unread by the last field)
        out.push('}');
    }
}

impl Json for WireAddress {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "name" => &self.name,
            "company" => &self.company,
            "address1" => &self.address1,
            "address2" => &self.address2,
            "city" => &self.city,
            "state" => &self.state,
            "zip" => &self.zip,
            "country" => &self.country,
            "phone" => &self.phone,
            "email" => &self.email,
        );
        out.push('}');
    }
}

impl Json for Piece {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "weight" => &self.weight,
            "length" => &self.length,
            "width" => &self.width,
            "height" => &self.height,
            "insuranceAmount" => &self.insurance_amount,
            "declaredValue" => &self.declared_value,
            "lineItems" => &self.line_items,
        );
        out.push('}');
    }
}

impl Json for LineItem {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "sku" => &self.sku,
            "productName" => &self.product_name,
            "quantity" => &self.quantity,
        );
        out.push('}');
    }
}

impl Json for Billing {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "party" => &self.party,
            "account" => &self.account,
            "country" => &self.country,
            "zip" => &self.zip,
            "dutiableParty" => &self.dutiable_party,
        );
        out.push('}');
    }
}

impl Json for DutiableParty {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "dutyPaymentType" => &self.duty_payment_type,
            "dutyPaymentAccountNumber" => &self.duty_payment_account_number,
        );
        out.push('}');
    }
}

impl Json for CommercialInvoice {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "sendElectronically" => &self.send_electronically,
            "ftrNumber" => &self.ftr_number,
            "itnNumber" => &self.itn_number,
            "aesNumber" => &self.aes_number,
            "termsOfTrade" => &self.terms_of_trade,
            "receiverTaxId" => &self.receiver_tax_id,
            "senderVatTaxId" => &self.sender_vat_tax_id,
            "packageMarks" => &self.package_marks,
            "items" => &self.items,
            "senderTaxIdNumberType" => &self.sender_tax_id_number_type,
            "dhlTaxIds" => &self.dhl_tax_ids,
        );
        out.push('}');
    }
}

impl Json for InvoiceItem {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "description" => &self.description,
            "quantity" => &self.quantity,
            "unitValue" => &self.unit_value,
            "weight" => &self.weight,
            "htsNumber" => &self.hts_number,
            "countryOfOrigin" => &self.country_of_origin,
        );
        out.push('}');
    }
}

impl Json for TaxId {
    fn write(&self, out: &mut String) {
        out.push('{');
        fields!(out, "",
            "number" => &self.number,
            "type" => &self.kind,
            "issuerCountry" => &self.issuer_country,
        );
        out.push('}');
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use rust_decimal::Decimal;

    use super::*;

    fn dec(text: &str) -> Dec {
        Dec(Decimal::from_str(text).unwrap())
    }

    fn text(s: &str) -> Option<CompactString> {
        Some(s.into())
    }

    /// Every field set, with text that needs escaping. The struct literals name every
    /// field, so that a field added to a type fails to compile here until it is written.
    fn everything() -> QuoteShipment {
        let address = |name: &str| WireAddress {
            name: text(name),
            company: text("Smith & \"Co\""),
            address1: text("1 High St\n"),
            address2: text("\\ back"),
            city: text("Zürich"),
            state: text("ZH"),
            zip: Some(text("8001")),
            country: text("CH"),
            phone: text("+41 44 000 00 00"),
            email: text("a@b.ch\u{1}"),
        };
        let item = InvoiceItem {
            description: Some("Mugs\t\u{2028}".into()),
            quantity: Some(Int(-3)),
            unit_value: Some(dec("12.50")),
            weight: Some(dec("0.000001")),
            hts_number: Some("6912.00".into()),
            country_of_origin: Some("PT".into()),
        };
        QuoteShipment {
            carrier_code: text("ups"),
            service_code: text("ground"),
            package_type_code: text("box"),
            shipment_date: text("2026-12-01"),
            shipment_reference: text("INV-\u{7f}"),
            content_description: text("ceramics"),
            sender: address("Ann"),
            receiver: address("Bo"),
            residential: Some(true),
            signature_option_code: text("adult"),
            saturday_delivery: Some(false),
            postal_express_am_delivery: Some(true),
            dangerous_goods_code: text("ORMD"),
            weight_unit: "kg".into(),
            dim_unit: Some(text("cm")),
            currency: text("EUR"),
            pieces: vec![
                Piece {
                    weight: dec("1.20"),
                    length: Some(dec("30")),
                    width: Some(dec("-0")),
                    height: Some(dec("79228162514264337593543950335")),
                    insurance_amount: Some(dec("150")),
                    declared_value: Some(dec("-7.9228162514264337593543950335")),
                    line_items: Some(vec![
                        LineItem { sku: "A\"1".into(), product_name: "Mug".into(), quantity: Int(2) },
                        LineItem { sku: String::new(), product_name: "Cup".into(), quantity: Int(0) },
                    ]),
                },
                Piece {
                    weight: dec("0"),
                    length: None,
                    width: None,
                    height: None,
                    insurance_amount: None,
                    declared_value: None,
                    line_items: Some(vec![]),
                },
            ],
            billing: Some(Billing {
                party: Some("third_party".into()),
                account: Some("123".into()),
                country: Some("US".into()),
                zip: Some("10001".into()),
                dutiable_party: Some(DutiableParty {
                    duty_payment_type: Some("receiver".into()),
                    duty_payment_account_number: Some("9".into()),
                }),
            }),
            provider_account_id: text("pa-1"),
            commercial_invoice: Some(CommercialInvoice {
                send_electronically: Some(true),
                ftr_number: Some(Some("30.37(a)".into())),
                itn_number: Some(None),
                aes_number: Some(None),
                terms_of_trade: Some("DAP".into()),
                receiver_tax_id: Some("CHE-1".into()),
                sender_vat_tax_id: Some("EIN-2".into()),
                package_marks: Some("fragile".into()),
                items: Some(vec![item.clone(), InvoiceItem::default()]),
                sender_tax_id_number_type: Some("ein".into()),
                dhl_tax_ids: Some(vec![
                    TaxId { number: Some("DE1".into()), kind: Some("VAT".into()), issuer_country: Some("DE".into()) },
                    TaxId::default(),
                ]),
            }),
            deliver_by: text("2026-12-05"),
        }
    }

    #[test]
    fn a_shipment_is_written_as_serde_writes_it() {
        let full = everything();
        let mut no_deliver_by = full.clone();
        no_deliver_by.deliver_by = None;
        let mut nulls = full.clone();
        nulls.receiver.zip = Some(None);
        nulls.dim_unit = Some(None);
        nulls.billing = Some(Billing::default());
        nulls.commercial_invoice = Some(CommercialInvoice::default());
        nulls.pieces = vec![];
        for shipment in [QuoteShipment::default(), full, no_deliver_by, nulls] {
            assert_eq!(shipment_json(&shipment), serde_json::to_string(&shipment).unwrap());
        }
    }

    #[test]
    fn what_is_written_reads_back_as_the_same_shipment() {
        let full = everything();
        let read: QuoteShipment = serde_json::from_str(&shipment_json(&full)).unwrap();
        assert_eq!(read, full);
    }
}
