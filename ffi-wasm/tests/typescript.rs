//! `consign.d.ts` declares the requests and answers as the wire types of `consign::wire`
//! are: below its marker line the file is what ts-rs renders from them, so a changed wire
//! type fails this test until the file is regenerated with
//! `UPDATE_TS=1 cargo test -p consign-wasm --test typescript`.
//! Above the marker are the declarations of what is not a wire type (options, the thrown
//! error, and the aliases the wire types' `#[ts(type)]` attributes name); the unions
//! among them that list a constant of the library are compared with it.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use std::path::Path;

use consign::wire::*;
use ts_rs::{Config, TS};

const MARKER: &str = "// ---- Generated from core/src/wire (ffi-wasm/tests/typescript.rs); do not edit below. ----\n";

/// One exported declaration with its doc comment, as ts-rs writes a type to a file but
/// with one member per line.
fn declaration<T: TS>(config: &Config) -> String {
    let docs = T::docs().unwrap_or_default();
    format!("\n{docs}export {}\n", one_member_per_line(&T::decl(config)))
}

/// `type X = { a: A, /** doc */ b: B, };` written with each member (and its doc comment)
/// on lines of its own; other declarations as they are. ts-rs writes an object type on
/// one line, which is hard to read and to review in a diff.
fn one_member_per_line(decl: &str) -> String {
    let (Some(open), Some(body)) = (decl.find("= {"), decl.strip_suffix("};")) else {
        return decl.to_string();
    };
    let body = &body[open + 3..];
    let (mut members, mut member, mut depth, mut rest) = (Vec::new(), String::new(), 0i32, body);
    while let Some(c) = rest.chars().next() {
        // A doc comment is copied whole: its commas and brackets are text.
        if rest.starts_with("/**") {
            let end = rest.find("*/").map_or(rest.len(), |i| i + 2);
            member.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        match c {
            '{' | '[' | '(' | '<' => depth += 1,
            '}' | ']' | ')' | '>' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            members.push(std::mem::take(&mut member));
        } else {
            member.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    members.push(member);
    let mut out = format!("{}{{\n", &decl[..open + 2]);
    for member in members.iter().map(|m| m.trim()).filter(|m| !m.is_empty()) {
        for line in member.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
        out.pop();
        out.push_str(",\n");
    }
    out.push_str("};");
    out
}

macro_rules! declarations {
    ($config:expr; $($t:ty),* $(,)?) => { [$(declaration::<$t>($config)),*].concat() };
}

/// Every wire type a method of the package takes or returns, and the types they name.
fn generated() -> String {
    // Ids and counts are well within a JS number; ts-rs would say `bigint` for i64.
    let c = &Config::new().with_large_int("number");
    declarations!(c;
        WireAddress, OkResponse,
        // customers
        CreateCustomerRequest, PrepaySettings, Utm, CustomerIdResponse, ConnectCustomerRequest,
        UpdatePaymentMethodRequest, PaymentMethod, PrepayResponse, LedgerEntry,
        // catalog, options, accounts
        ServicesResponse, ServiceEntry, SignatureOptionEntry, PackageTypeEntry, RegionalShipmentTypesResponse,
        IntegratedQuotingOptions, IntegratedQuotingOption, ProviderAccountsResponse, ProviderAccount,
        PutProviderAccountRequest, CreateIntegrationRequest, CreateIntegrationResponse, PartnersResponse, Partner,
        // quoting
        BatchQuoteRequest, QuoteShipment, Piece, LineItem, Billing, DutiableParty, CommercialInvoice,
        InvoiceItem, TaxId, Quote, QuoteSurcharge, QuoteError, BatchQuoteResponse, ShipmentQuotes,
        QuotesResponse, QuoteAnswer,
        // booking
        BookShipmentRequest, BookPiece, Fulfillment, FulfillmentItem, BookShipmentResponse, BookedPiece,
        ShipmentView, ViewAddress, ViewPiece, ViewInvoice, ShipmentsResponse, VoidRequest, VoidResponse, LabelResponse, LabelsRequest, InvoiceResponse,
        // batches
        CreateBatchRequest, CreateBatchResponse, AddQuotesRequest, Batch, BatchQuote, BatchesResponse,
        BatchSummary, BatchBookRequest, BatchBookResponse, BatchBookResult,
        // after booking
        SearchShipmentsRequest, TrackingEvent, RecordTrackingEventsRequest, RecordTrackingEventsResponse,
        SchedulePickupRequest, PickupIdResponse, Pickup, CreateManifestRequest, ManifestResponse,
        Order, OrderItem, OrderPackage,
        // events
        Event, EventsResponse, CommittedEvent, TrackingUpdate, ReturnLabelUse,
    )
}

#[test]
fn consign_d_ts_declares_the_wire_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("consign.d.ts");
    let file = std::fs::read_to_string(&path).unwrap();
    let Some((head, tail)) = file.split_once(MARKER) else {
        panic!("{}: the marker line is missing: {MARKER}", path.display());
    };
    let want = generated();
    if std::env::var_os("UPDATE_TS").is_some() {
        std::fs::write(&path, format!("{head}{MARKER}{want}")).unwrap();
    } else if tail != want {
        panic!(
            "{} does not declare the wire types as they are; regenerate it with \
             `UPDATE_TS=1 cargo test -p consign-wasm --test typescript` and review the diff",
            path.display()
        );
    }
}

/// The string literals of `export type {name} = "a" | "b" ...;` in `head`.
fn union_members<'a>(head: &'a str, name: &str) -> Vec<&'a str> {
    let start = head.find(&format!("export type {name} = ")).unwrap_or_else(|| panic!("consign.d.ts declares no {name}"));
    let decl = &head[start..];
    let decl = &decl[..decl.find(';').unwrap()];
    decl.split('"').skip(1).step_by(2).collect()
}

/// The string literals of the union of the member `name: "a" | "b" ...;` in `head`.
fn member_union<'a>(head: &'a str, name: &str) -> Vec<&'a str> {
    let start = head.find(&format!("  {name}:\n")).unwrap_or_else(|| panic!("consign.d.ts declares no member {name}"));
    let decl = &head[start..];
    let decl = &decl[..decl.find(';').unwrap()];
    decl.split('"').skip(1).step_by(2).collect()
}

#[test]
fn the_hand_written_unions_list_the_values_of_the_library() {
    let file = include_str!("../consign.d.ts");
    let head = &file[..file.find(MARKER).unwrap()];
    assert_eq!(union_members(head, "EventStatus"), consign::EVENT_STATUSES);
    let kinds: Vec<&str> = consign::CsvKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(union_members(head, "RateCsvKind"), kinds);
    let categories: Vec<&str> = consign::ErrorCategory::ALL.iter().map(|c| c.code()).collect();
    assert_eq!(member_union(head, "errorCategory"), categories);
}
