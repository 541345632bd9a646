//! Documents are checked by reading them back: PDFs through a PDF parser, printer
//! languages by their command structure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use chrono::NaiveDate;
use lopdf::{Document as ParsedPdf, Object};

fn address(name: &str, city: &str, state: &str, zip: &str) -> LabelAddress {
    LabelAddress {
        name: name.into(),
        company: format!("{name} Inc."),
        address1: "100 Main Street".into(),
        address2: "Suite 5".into(),
        city: city.into(),
        state: state.into(),
        zip: zip.into(),
        country: "US".into(),
        phone: "555-0100".into(),
    }
}

fn label() -> LabelData {
    LabelData {
        carrier_label: "Parcel carrier".into(),
        service_label: "Ground".into(),
        tracking_number: "1Z999AA10123456784".into(),
        book_number: "BK-000123".into(),
        sender: address("Alice Sender", "Springfield", "IL", "62701"),
        receiver: address("Bob Receiver", "Austin", "TX", "78701"),
        weight: "2 lb".into(),
        reference: "INV-42".into(),
        shipment_date: NaiveDate::from_ymd_opt(2026, 11, 21).unwrap(),
        piece: (1, 2),
        zone: "5".into(),
        customs: None,
    }
}

fn parse(pdf: &[u8]) -> ParsedPdf {
    assert!(pdf.starts_with(b"%PDF-"));
    ParsedPdf::load_mem(pdf).expect("the PDF parses")
}

fn media_box(doc: &ParsedPdf, page: u32) -> Vec<f32> {
    let id = doc.get_pages()[&page];
    let dict = doc.get_dictionary(id).unwrap();
    dict.get(b"MediaBox")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|o| match o {
            Object::Integer(i) => *i as f32,
            Object::Real(r) => *r,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

fn all_text(doc: &ParsedPdf) -> String {
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).unwrap()
}

#[test]
fn pdf_label_is_a_4x6_page_with_the_fields() {
    let pdf = render_label(LabelFormat::Pdf, &label()).unwrap();
    let doc = parse(&pdf);
    assert_eq!(doc.get_pages().len(), 1);
    assert_eq!(media_box(&doc, 1), [0.0, 0.0, 288.0, 432.0]);
    let text = all_text(&doc);
    for needle in [
        "1Z999AA10123456784",
        "Alice Sender",
        "Bob Receiver",
        "Springfield, IL 62701",
        "Austin, TX 78701",
        "Ground",
        "Parcel carrier",
        "WGT: 2 lb",
        "PKG: 1 OF 2",
        "DATE: 2026-11-21",
        "REF: INV-42",
        "BOOK #: BK-000123",
        "SHIP TO:",
        "FROM:",
        "ZONE",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in {text}");
    }
    // The fonts are the standard Helvetica faces, not embedded.
    let raw = String::from_utf8_lossy(&pdf);
    assert!(raw.contains("/BaseFont /Helvetica"));
    assert!(raw.contains("/WinAnsiEncoding"));
}

#[test]
fn pdf_label_draws_the_barcode_as_rectangles() {
    let with = render_label(LabelFormat::Pdf, &label()).unwrap();
    let mut l = label();
    l.tracking_number = String::new();
    let without = render_label(LabelFormat::Pdf, &l).unwrap();
    let count = |pdf: &[u8]| String::from_utf8_lossy(pdf).matches(" re").count();
    // 1Z999AA10123456784 in Code 128 has 16 symbols of 3 bars plus a 4-bar stop.
    assert_eq!(count(&with) - count(&without), 16 * 3 + 4);
}

#[test]
fn multi_piece_pdf_has_one_page_per_label() {
    let mut labels = vec![label(), label(), label()];
    for (i, l) in labels.iter_mut().enumerate() {
        l.piece = (i as u32 + 1, 3);
    }
    let doc = parse(&render_labels_pdf(&labels).unwrap());
    assert_eq!(doc.get_pages().len(), 3);
    for p in 1..=3 {
        assert_eq!(media_box(&doc, p), [0.0, 0.0, 288.0, 432.0]);
        assert!(doc.extract_text(&[p]).unwrap().contains(&format!("PKG: {p} OF 3")));
    }
    assert_eq!(render_labels_pdf(&[]), Err(DocumentError::NoLabels));
    assert_eq!(DocumentError::NoLabels.to_string(), "labels: expected at least one label, found none");
}

#[test]
fn non_ascii_text_renders_in_winansi_or_as_replacement() {
    let mut l = label();
    l.receiver.name = "Zoë Müller-Łukasiewicz".into();
    l.receiver.city = "Zürich".into();
    l.receiver.address1 = "東京都千代田区 1-1 (Bldg) \\ 5".into();
    l.sender.company = "Café \"Crème\" ^~_ & Co — €".into();
    l.tracking_number = "1Z999AA10123456784".into();
    let doc = parse(&render_label(LabelFormat::Pdf, &l).unwrap());
    let text = all_text(&doc);
    assert!(text.contains("Zürich"), "{text}");
    assert!(text.contains("Zoë Müller-Lukasiewicz"), "{text}");
    assert!(text.contains("??????? 1-1 (Bldg) \\ 5"), "{text}");
    assert!(text.contains("Café \"Crème\""), "{text}");

    for format in [LabelFormat::Zpl, LabelFormat::Epl2] {
        let out = render_label(format, &l).unwrap();
        assert!(out.is_ascii(), "{format:?} output must be ASCII");
    }
}

fn nasty_label() -> LabelData {
    let long = "W".repeat(5_000);
    let mut l = label();
    l.carrier_label = long.clone();
    l.service_label = format!("{long}😀");
    l.tracking_number = "😀".repeat(50);
    l.book_number = long.clone();
    l.sender = address(&long, &long, &long, &long);
    l.receiver = LabelAddress { name: "\u{0}\u{7}\t\r\n".into(), ..LabelAddress::default() };
    l.weight = String::new();
    l.reference = "ق".repeat(10_000);
    l.zone = long;
    l.piece = (u32::MAX, 0);
    l
}

#[test]
fn hostile_inputs_render_in_every_format() {
    for l in [nasty_label(), LabelData::default()] {
        let doc = parse(&render_label(LabelFormat::Pdf, &l).unwrap());
        assert_eq!(media_box(&doc, 1), [0.0, 0.0, 288.0, 432.0]);
        let zpl = String::from_utf8(render_label(LabelFormat::Zpl, &l).unwrap()).unwrap();
        assert!(zpl.starts_with("^XA") && zpl.trim_end().ends_with("^XZ"));
        let epl = String::from_utf8(render_label(LabelFormat::Epl2, &l).unwrap()).unwrap();
        assert!(epl.trim_start().starts_with("N\n") && epl.ends_with("P1\n"));
        // No barcode for a tracking number that is not printable ASCII.
        assert!(!zpl.contains("^BC"));
        assert!(!epl.lines().any(|line| line.starts_with('B')));
    }
    // Long text is cut, not overflowing: every PDF text line stays on the page.
    let pdf = render_label(LabelFormat::Pdf, &nasty_label()).unwrap();
    assert!(pdf.len() < 64 * 1024, "long inputs are cut, got {} bytes", pdf.len());
    assert!(String::from_utf8_lossy(&pdf).contains("..."));
}

/// Every text position and rectangle of every page lies on the page.
fn assert_drawing_on_page(pdf: &[u8], width: f32, height: f32) {
    let doc = parse(pdf);
    let num = |o: &Object| match o {
        Object::Integer(i) => *i as f32,
        Object::Real(r) => *r,
        other => panic!("unexpected operand {other:?}"),
    };
    for (_, id) in doc.get_pages() {
        let content = lopdf::content::Content::decode(&doc.get_page_content(id).unwrap()).unwrap();
        for op in &content.operations {
            let v: Vec<f32> = match op.operator.as_str() {
                "Td" | "re" => op.operands.iter().map(num).collect(),
                _ => continue,
            };
            assert!(v.iter().all(|n| n.is_finite()), "{op:?}");
            let (x, y) = (v[0], v[1]);
            assert!((0.0..=width).contains(&x) && (0.0..=height).contains(&y), "{} off the page: {v:?}", op.operator);
            if op.operator == "re" {
                assert!(x + v[2] <= width + 0.01 && y + v[3] <= height + 0.01, "rectangle off the page: {v:?}");
            }
        }
    }
}

#[test]
fn everything_is_drawn_on_the_page() {
    for l in [label(), nasty_label(), LabelData::default()] {
        assert_drawing_on_page(&render_label(LabelFormat::Pdf, &l).unwrap(), 288.0, 432.0);
    }
    for n in [0, 1, 37, 120] {
        assert_drawing_on_page(&render_manifest_pdf(&manifest(n)).unwrap(), 612.0, 792.0);
    }
}

#[test]
fn a_long_ascii_tracking_number_gets_no_unscannable_barcode() {
    let mut l = label();
    l.tracking_number = "1234567890AB".repeat(40);
    let pdf = render_label(LabelFormat::Pdf, &l).unwrap();
    parse(&pdf);
    let zpl = String::from_utf8(render_label(LabelFormat::Zpl, &l).unwrap()).unwrap();
    assert!(!zpl.contains("^BC"));
}

#[test]
fn zpl_structure() {
    let zpl = String::from_utf8(render_label(LabelFormat::Zpl, &label()).unwrap()).unwrap();
    assert!(zpl.starts_with("^XA\n"));
    assert!(zpl.ends_with("^XZ\n"));
    assert!(zpl.contains("^PW812") && zpl.contains("^LL1218") && zpl.contains("^CI28"));
    let barcode = zpl.lines().find(|l| l.contains("^BC")).expect("a ^BC barcode");
    assert!(barcode.contains("^BY3"), "{barcode}");
    assert!(barcode.ends_with("^FD1Z999AA10123456784^FS"), "{barcode}");
    for line in zpl.lines().filter(|l| l.contains("^FD")) {
        assert!(line.starts_with("^FO") && line.ends_with("^FS"), "{line}");
        assert!(line.contains("^FH^FD"), "every field is hex-escapable: {line}");
    }
    assert!(zpl.contains("^A0N,"));
    assert!(zpl.contains("^FDBob Receiver^FS"));
    assert!(zpl.contains("^FDAustin, TX 78701^FS"));
    assert!(zpl.contains("^FDGround^FS"));
    assert!(zpl.contains("^GB"));
}

#[test]
fn zpl_escapes_caret_tilde_and_non_ascii() {
    let mut l = label();
    l.receiver.name = "A^B~C_D\\E ü".into();
    l.tracking_number = "AB^12".into();
    let zpl = String::from_utf8(render_label(LabelFormat::Zpl, &l).unwrap()).unwrap();
    assert!(zpl.contains("^FDA_5EB_7EC_5FD_5CE _C3_BC^FS"), "{zpl}");
    assert!(zpl.contains("^FDAB_5E12^FS"), "{zpl}");
    // The only carets are commands: every ^ is followed by a command letter.
    let data_carets = zpl.matches("^FD^").count() + zpl.matches("^^").count();
    assert_eq!(data_carets, 0);
}

#[test]
fn epl2_structure_and_quoting() {
    let epl = String::from_utf8(render_label(LabelFormat::Epl2, &label()).unwrap()).unwrap();
    let lines: Vec<&str> = epl.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines[..3], ["N", "q812", "Q1218,24"]);
    assert_eq!(lines.last(), Some(&"P1"));
    let barcode = lines.iter().find(|l| l.starts_with('B')).expect("a B barcode line");
    let fields: Vec<&str> = barcode[1..].split(',').collect();
    assert_eq!(fields[2..4], ["0", "1"], "Code 128 (type 1), unrotated: {barcode}");
    assert!(barcode.ends_with(",N,\"1Z999AA10123456784\""), "{barcode}");
    assert!(lines.iter().any(|l| l.starts_with('A') && l.ends_with("\"Bob Receiver\"")));
    assert!(lines.iter().any(|l| l.starts_with("LO")));

    let mut l = label();
    l.receiver.name = "Say \"hi\" \\o/ Zoë".into();
    l.tracking_number = "AB\"12".into();
    let epl = String::from_utf8(render_label(LabelFormat::Epl2, &l).unwrap()).unwrap();
    assert!(epl.contains(r#",N,"Say \"hi\" \\o/ Zoe""#), "{epl}");
    assert!(epl.contains(r#",N,"AB\"12""#), "{epl}");
}

#[test]
fn thermal_coordinates_stay_on_the_label() {
    for l in [label(), nasty_label()] {
        let zpl = String::from_utf8(render_label(LabelFormat::Zpl, &l).unwrap()).unwrap();
        for line in zpl.lines().filter(|l| l.starts_with("^FO")) {
            let xy: Vec<u32> = line[3..].split('^').next().unwrap().split(',').map(|v| v.parse().unwrap()).collect();
            assert!(xy[0] < 812 && xy[1] < 1218, "{line}");
        }
        let epl = String::from_utf8(render_label(LabelFormat::Epl2, &l).unwrap()).unwrap();
        for line in epl.lines().filter(|l| l.starts_with('A')) {
            let f: Vec<&str> = line[1..].splitn(8, ',').collect();
            let x: u32 = f[0].parse().unwrap();
            let mult: u32 = f[4].parse().unwrap();
            let font: u32 = f[3].parse().unwrap();
            let cell = [0, 10, 12, 14, 16][font as usize];
            let chars = f[7].trim_matches('"').replace("\\\"", "\"").replace("\\\\", "\\").len();
            assert!(x + chars as u32 * cell * mult <= 812, "{line}");
        }
    }
}

fn manifest(n: usize) -> ManifestData {
    ManifestData {
        manifest_id: "MF-20261121-0001".into(),
        carrier_label: "Parcel carrier".into(),
        created: NaiveDate::from_ymd_opt(2026, 11, 21).unwrap(),
        shipper: address("Alice Sender", "Springfield", "IL", "62701"),
        lines: (0..n)
            .map(|i| ManifestLine {
                book_number: format!("BK-{i:06}"),
                tracking_number: crate::tracking_number::generate(crate::tracking_number::TrackingKind::Parcel, i as u64, "ACME"),
                service_label: "Ground".into(),
                weight: "2 lb".into(),
                destination: "Austin, TX 78701, US".into(),
            })
            .collect(),
        total_weight: format!("{} lb", 2 * n),
    }
}

#[test]
fn empty_manifest_has_one_page_and_zero_totals() {
    let doc = parse(&render_manifest_pdf(&manifest(0)).unwrap());
    assert_eq!(doc.get_pages().len(), 1);
    assert_eq!(media_box(&doc, 1), [0.0, 0.0, 612.0, 792.0]);
    let text = all_text(&doc);
    for needle in [
        "SHIPPING MANIFEST",
        "MF-20261121-0001",
        "No shipments.",
        "Total shipments: 0",
        "Total weight: 0 lb",
        "Page 1 of 1",
        "Alice Sender",
        "Created: 2026-11-21",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in {text}");
    }
}

#[test]
fn one_line_manifest() {
    let m = manifest(1);
    let pdf = render_manifest_pdf(&m).unwrap();
    let doc = parse(&pdf);
    assert_eq!(doc.get_pages().len(), 1);
    let text = all_text(&doc);
    assert!(text.contains(&m.lines[0].tracking_number));
    assert!(text.contains("BK-000000"));
    assert!(text.contains("Austin, TX 78701, US"));
    assert!(text.contains("Total shipments: 1"));
    assert!(text.contains("Total weight: 2 lb"));
    // The manifest id barcode: bars are filled rectangles.
    assert!(String::from_utf8_lossy(&pdf).matches(" re").count() > 20);
}

#[test]
fn long_manifest_paginates_and_lists_every_line() {
    let m = manifest(120);
    let doc = parse(&render_manifest_pdf(&m).unwrap());
    let pages = doc.get_pages().len() as u32;
    assert!(pages >= 3, "120 lines need several pages, got {pages}");
    for p in 1..=pages {
        assert_eq!(media_box(&doc, p), [0.0, 0.0, 612.0, 792.0]);
        let text = doc.extract_text(&[p]).unwrap();
        assert!(text.contains(&format!("Page {p} of {pages}")), "{text}");
    }
    let text = all_text(&doc);
    for line in &m.lines {
        assert!(text.contains(&line.tracking_number), "missing {}", line.tracking_number);
        assert!(text.contains(&line.book_number));
    }
    assert!(text.contains("Total shipments: 120"));
    assert!(text.contains("Total weight: 240 lb"));
    let last = doc.extract_text(&[pages]).unwrap();
    assert!(last.contains("Total shipments: 120"), "totals sit on the last page");
}

#[test]
fn totals_get_their_own_page_when_the_last_one_is_full() {
    for n in 0..200 {
        let pages = manifest::paginate(n);
        let rows: usize = pages.iter().map(|r| r.len()).sum();
        assert_eq!(rows, n);
        // Consecutive, in order.
        let mut next = 0;
        for r in &pages {
            assert_eq!(r.start, next);
            next = r.end;
        }
    }
    let full_first = manifest::paginate(37).len();
    assert!(full_first >= 2, "37 rows fill page 1 so the totals move on");
    let doc = parse(&render_manifest_pdf(&manifest(37)).unwrap());
    let last = doc.extract_text(&[doc.get_pages().len() as u32]).unwrap();
    assert!(last.contains("Total shipments: 37"));
}

#[test]
fn hostile_manifest_renders() {
    let mut m = manifest(3);
    m.manifest_id = "😀".repeat(300);
    m.carrier_label = "W".repeat(10_000);
    m.shipper = LabelAddress::default();
    m.lines[1] = ManifestLine {
        book_number: "(".repeat(500),
        tracking_number: "\\".repeat(500),
        service_label: "日本".into(),
        weight: String::new(),
        destination: "Zürich, ZH 8001, CH".into(),
    };
    m.total_weight = String::new();
    let doc = parse(&render_manifest_pdf(&m).unwrap());
    assert!(all_text(&doc).contains("Zürich, ZH 8001, CH"));
    parse(&render_manifest_pdf(&ManifestData::default()).unwrap());
}

#[test]
fn layout_boxes_stay_inside_the_label() {
    for l in [label(), nasty_label()] {
        for e in layout::label(&l) {
            match e {
                Element::Text { x, y, size, min_size, max_width, .. } => {
                    assert!(x + max_width <= LABEL_WIDTH && y + size <= LABEL_HEIGHT, "{e:?}");
                    assert!(min_size <= size && min_size >= 6, "{e:?}");
                }
                Element::Rule { x, y, width, height } => {
                    assert!(x + width <= LABEL_WIDTH && y + height <= LABEL_HEIGHT, "{e:?}");
                }
                Element::Barcode { x, y, height, max_width, .. } => {
                    assert!(x + max_width <= LABEL_WIDTH && y + height <= LABEL_HEIGHT, "{e:?}");
                }
            }
        }
    }
}

#[test]
fn label_format_codes_round_trip() {
    for f in [LabelFormat::Pdf, LabelFormat::Zpl, LabelFormat::Epl2] {
        assert_eq!(LabelFormat::from_code(f.code()), Some(f));
    }
    assert_eq!(LabelFormat::from_code("pdf"), None);
    assert_eq!(LabelFormat::from_code("EPL"), None);
}

fn invoice(lines: usize, exporter_country: &str) -> InvoiceData {
    let mut exporter = address("Alice Sender", "Springfield", "IL", "62701");
    exporter.country = exporter_country.into();
    let mut importer = address("Bob Receiver", "London", "", "SW1A 1AA");
    importer.country = "GB".into();
    InvoiceData {
        paper: Paper::for_country(exporter_country),
        date: NaiveDate::from_ymd_opt(2026, 11, 25).unwrap(),
        book_number: "1000000042".into(),
        tracking_numbers: vec!["1Z999AA10123456784".into(), "1Z999AA10123456791".into()],
        carrier_label: "International express".into(),
        service_label: "Worldwide Express".into(),
        exporter,
        exporter_tax_id: "12-3456789".into(),
        exporter_tax_id_type: "EIN".into(),
        importer,
        importer_tax_id: "GB123456789000".into(),
        carrier_tax_ids: vec![CarrierTaxId { kind: "EOR".into(), number: "GB987654321000".into(), issuer_country: "GB".into() }],
        terms_of_trade: "DAP".into(),
        ftr_number: "30.37(a)".into(),
        itn_number: String::new(),
        package_marks: "FRAGILE - 1/2, 2/2".into(),
        packages: 2,
        total_weight: "3.5 kg".into(),
        lines: (0..lines)
            .map(|i| InvoiceLine {
                description: format!("Stoneware mug {i}"),
                hts_number: "6912.00.48".into(),
                country_of_origin: "US".into(),
                quantity: "4".into(),
                unit_value: "12.50".into(),
                line_value: "50.00".into(),
                weight: "1.2 kg".into(),
            })
            .collect(),
        total_value: format!("{}.00", 50 * lines),
        currency: "USD".into(),
    }
}

#[test]
fn invoice_prints_every_field_on_letter_for_a_us_exporter() {
    let doc = parse(&render_invoice_pdf(&invoice(3, "US")).unwrap());
    assert_eq!(doc.get_pages().len(), 1);
    assert_eq!(media_box(&doc, 1), [0.0, 0.0, 612.0, 792.0]);
    let text = all_text(&doc);
    for needle in [
        "COMMERCIAL INVOICE",
        "Date: 2026-11-25",
        "Book number: 1000000042",
        "Tracking: 1Z999AA10123456784, 1Z999AA10123456791",
        "International express",
        "Worldwide Express",
        "EXPORTER",
        "Alice Sender",
        "Springfield, IL 62701",
        "Tax id (EIN): 12-3456789",
        "IMPORTER",
        "Bob Receiver",
        "Tax id: GB123456789000",
        "Carrier tax ids: EOR GB987654321000 (GB)",
        "Terms of trade: DAP",
        "FTR: 30.37(a)",
        "Packages: 2",
        "Total weight: 3.5 kg",
        "Package marks: FRAGILE - 1/2, 2/2",
        "Description",
        "HTS number",
        "Stoneware mug 0",
        "Stoneware mug 2",
        "6912.00.48",
        "12.50",
        "50.00",
        "1.2 kg",
        "Total value: 150.00 USD",
        "I declare that all the information contained in this invoice is true and correct",
        "Signature of the exporter",
        "Page 1 of 1",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in {text}");
    }
}

#[test]
fn invoice_is_a4_outside_the_us_and_canada_and_shows_an_itn() {
    for (country, size) in
        [("US", [612.0, 792.0]), ("CA", [612.0, 792.0]), ("PR", [612.0, 792.0]), ("DE", [595.0, 842.0]), ("GB", [595.0, 842.0])]
    {
        let doc = parse(&render_invoice_pdf(&invoice(2, country)).unwrap());
        assert_eq!(media_box(&doc, 1)[2..], size, "{country}");
    }
    let mut inv = invoice(1, "US");
    (inv.ftr_number, inv.itn_number) = (String::new(), "X20261125123456".into());
    let text = all_text(&parse(&render_invoice_pdf(&inv).unwrap()));
    assert!(text.contains("ITN: X20261125123456") && !text.contains("FTR:"), "{text}");
}

#[test]
fn a_long_invoice_runs_over_pages_with_every_item_once() {
    for paper_country in ["US", "FR"] {
        let inv = invoice(100, paper_country);
        let doc = parse(&render_invoice_pdf(&inv).unwrap());
        let pages = doc.get_pages().len();
        assert!(pages >= 3, "{pages} pages");
        let text = all_text(&doc);
        for i in 0..100 {
            assert_eq!(
                text.matches(&format!("Stoneware mug {i}\n")).count() + text.matches(&format!("Stoneware mug {i} ")).count(),
                1,
                "item {i}"
            );
        }
        assert!(text.contains(&format!("Page {pages} of {pages}")));
        let last = doc.extract_text(&[u32::try_from(pages).unwrap()]).unwrap();
        assert!(last.contains("Total value: 5000.00 USD") && last.contains("Signature of the exporter"), "{last}");
        let (width, height) = Paper::for_country(paper_country).size();
        assert_drawing_on_page(&render_invoice_pdf(&inv).unwrap(), width as f32, height as f32);
    }
}

#[test]
fn hostile_invoices_render() {
    let mut inv = invoice(2, "JP");
    inv.exporter.name = "東京 \u{0} ".repeat(200);
    inv.lines[0].description = "😀".repeat(500);
    inv.book_number = "x".repeat(10_000);
    inv.tracking_numbers = vec!["9".repeat(500); 99];
    let doc = parse(&render_invoice_pdf(&inv).unwrap());
    assert_eq!(doc.get_pages().len(), 1);
    assert_drawing_on_page(&render_invoice_pdf(&inv).unwrap(), 595.0, 842.0);
}

#[test]
fn sheets_hold_two_labels_side_by_side_with_cut_marks_outside_them() {
    let mut labels = vec![label(), label(), label()];
    for (i, l) in labels.iter_mut().enumerate() {
        l.piece = (i as u32 + 1, 3);
    }
    for (layout, width, height) in [(LabelLayout::Letter, 612.0, 792.0), (LabelLayout::A4, 595.0, 842.0)] {
        let pdf = render_labels_pdf_on(&labels, layout).unwrap();
        let doc = parse(&pdf);
        assert_eq!(doc.get_pages().len(), 2, "{layout:?}");
        assert_eq!(media_box(&doc, 1), [0.0, 0.0, width, height]);
        let first = doc.extract_text(&[1]).unwrap();
        assert!(first.contains("PKG: 1 OF 3") && first.contains("PKG: 2 OF 3") && !first.contains("PKG: 3 OF 3"), "{first}");
        assert!(doc.extract_text(&[2]).unwrap().contains("PKG: 3 OF 3"));
        assert_drawing_on_page(&pdf, width, height);
        // The upright cut marks: 1 x 12 pt, above and below the labels' band, at each corner.
        let top = (height - 432.0) / 2.0;
        let content = lopdf::content::Content::decode(&doc.get_page_content(doc.get_pages()[&1]).unwrap()).unwrap();
        let outside = content
            .operations
            .iter()
            .filter(|op| op.operator == "re")
            .filter(|op| {
                let [_, y, w, h] = [0, 1, 2, 3].map(|i| op.operands[i].as_float().unwrap());
                (w, h) == (1.0, 12.0) && (y >= height - top || y + h <= top)
            })
            .count();
        assert_eq!(outside, 8, "{layout:?}: upright marks at the four corners of both labels");
    }
    assert_eq!(render_labels_pdf_on(&labels, LabelLayout::Label).unwrap(), render_labels_pdf(&labels).unwrap());
    assert_eq!(render_labels_pdf_on(&[], LabelLayout::A4), Err(DocumentError::NoLabels));
    for (code, layout) in [("4x6", LabelLayout::Label), ("LETTER", LabelLayout::Letter), (" a4 ", LabelLayout::A4)] {
        assert_eq!(LabelLayout::from_code(code), Some(layout));
    }
    assert_eq!(LabelLayout::from_code("legal"), None);
}

fn declaration(form: CustomsForm) -> CustomsDeclaration {
    CustomsDeclaration {
        form,
        sender: address("Alice Sender", "Springfield", "IL", "62701"),
        receiver: LabelAddress { country: "GB".into(), ..address("Bob Receiver", "London", "", "SW1A 1AA") },
        items: vec![CustomsItem {
            description: "Stoneware mug".into(),
            quantity: "4".into(),
            value: "80.00 USD".into(),
            weight: "1.2 kg".into(),
            hts_number: "6912.00.48".into(),
            origin: "US".into(),
        }],
        total_value: "80.00 USD".into(),
        total_weight: "1.2 kg".into(),
        tracking_number: "LZ123456785US".into(),
        date: NaiveDate::from_ymd_opt(2026, 11, 25).unwrap(),
    }
}

#[test]
fn a_customs_declaration_follows_its_label_in_every_format() {
    let mut l = label();
    l.customs = Some(declaration(CustomsForm::Short));
    let doc = parse(&render_label(LabelFormat::Pdf, &l).unwrap());
    assert_eq!(doc.get_pages().len(), 2);
    assert_eq!(media_box(&doc, 2), [0.0, 0.0, 288.0, 432.0]);
    let form = doc.extract_text(&[2]).unwrap();
    for needle in
        ["CUSTOMS DECLARATION CN 22", "Stoneware mug", "80.00 USD", "1.2 kg", "Total value: 80.00 USD", "I certify that", "LZ123456785US"]
    {
        assert!(form.contains(needle), "missing {needle:?} in {form}");
    }
    assert!(!form.contains("6912.00.48"), "the short form has no HTS column");
    let zpl = String::from_utf8(render_label(LabelFormat::Zpl, &l).unwrap()).unwrap();
    assert_eq!((zpl.matches("^XA").count(), zpl.matches("^XZ").count()), (2, 2));
    assert!(zpl.contains("CUSTOMS DECLARATION CN 22"));
    let epl = String::from_utf8(render_label(LabelFormat::Epl2, &l).unwrap()).unwrap();
    assert_eq!(epl.matches("\nN\n").count(), 2, "two labels: {epl}");
    assert_drawing_on_page(&render_label(LabelFormat::Pdf, &l).unwrap(), 288.0, 432.0);
}

#[test]
fn the_long_form_adds_addresses_hts_and_origin() {
    let mut l = label();
    let mut long = declaration(CustomsForm::Long);
    long.items = (0..12).map(|i| CustomsItem { description: format!("Bowl {i}"), ..long.items[0].clone() }).collect();
    l.customs = Some(long);
    let doc = parse(&render_label(LabelFormat::Pdf, &l).unwrap());
    let form = doc.extract_text(&[2]).unwrap();
    for needle in
        ["CUSTOMS DECLARATION CN 23", "FROM", "Alice Sender", "TO", "Bob Receiver", "6912.00.48", "Bowl 0", "Bowl 6", "and 5 more items"]
    {
        assert!(form.contains(needle), "missing {needle:?} in {form}");
    }
    assert_drawing_on_page(&render_label(LabelFormat::Pdf, &l).unwrap(), 288.0, 432.0);
}
