//! The postal customs declaration that follows a carrier B label abroad: a 4x6 page laid
//! out as the label is (so PDF, ZPL and EPL2 print the same), in the short form up to
//! [`SHORT_FORM_LIMIT_USD`] of contents and the long form above.

use super::layout::{city_line, iso_date, Element, LABEL_WIDTH};
use super::text::Font;
use super::LabelAddress;

/// Contents worth up to this many US dollars take the short form; more, the long form.
pub const SHORT_FORM_LIMIT_USD: u32 = 400;

/// Which declaration: the short form lists contents, values and weights; the long form
/// adds the HTS number and origin of each item, the addresses and the sender's
/// declaration in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomsForm {
    /// Contents up to [`SHORT_FORM_LIMIT_USD`].
    Short,
    /// Contents above it.
    Long,
}

/// An item of the contents, as printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomsItem {
    /// What it is.
    pub description: String,
    /// How many.
    pub quantity: String,
    /// Its value with the currency.
    pub value: String,
    /// Its weight with the unit, or empty.
    pub weight: String,
    /// HTS number, or empty.
    pub hts_number: String,
    /// Country of origin, or empty.
    pub origin: String,
}

/// Everything printed on a postal customs declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomsDeclaration {
    /// Short or long form.
    pub form: CustomsForm,
    /// The sender.
    pub sender: LabelAddress,
    /// The receiver.
    pub receiver: LabelAddress,
    /// The items.
    pub items: Vec<CustomsItem>,
    /// Total value with the currency.
    pub total_value: String,
    /// Total weight with the unit.
    pub total_weight: String,
    /// The tracking number of the package it goes with.
    pub tracking_number: String,
    /// The shipment date, printed as the declaration's date.
    pub date: chrono::NaiveDate,
}

/// The sender's declaration of both forms.
pub const SENDER_DECLARATION: &str =
    "I certify that the particulars given in this declaration are correct and that this item does not contain any dangerous article prohibited by postal regulations.";

const MARGIN: u32 = 10;
/// Most item rows a 4x6 declaration holds; more are summed up in one last row.
const MAX_ROWS: usize = 8;

fn text(x: u32, y: u32, size: u32, font: Font, max_width: u32, s: impl Into<String>) -> Element {
    Element::Text { x, y, size, min_size: size.min(6), font, max_width, center: false, text: s.into() }
}

/// The declaration laid out on a 4x6 label.
pub(crate) fn layout(d: &CustomsDeclaration) -> Vec<Element> {
    let inner = LABEL_WIDTH - 2 * MARGIN;
    let mut out = Vec::with_capacity(96);
    let (title, subtitle) = match d.form {
        CustomsForm::Short => ("CUSTOMS DECLARATION CN 22", "May be opened officially. Contents up to 400 USD."),
        CustomsForm::Long => ("CUSTOMS DECLARATION CN 23", "May be opened officially. Contents over 400 USD."),
    };
    out.push(text(MARGIN, 8, 12, Font::Bold, inner, title));
    out.push(text(MARGIN, 24, 7, Font::Regular, inner, subtitle));
    out.push(text(MARGIN, 34, 7, Font::Regular, inner, format!("Item {}   Category: Merchandise", d.tracking_number)));
    out.push(Element::Rule { x: 0, y: 45, width: LABEL_WIDTH, height: 1 });
    let mut y = 50;
    if d.form == CustomsForm::Long {
        let half = inner / 2;
        for (i, (who, a)) in [("FROM", &d.sender), ("TO", &d.receiver)].into_iter().enumerate() {
            let x = MARGIN + u32::try_from(i).unwrap_or(0) * (half + 4);
            out.push(text(x, y, 7, Font::Bold, half - 4, who));
            let lines = [a.name.trim(), a.company.trim(), a.address1.trim(), &city_line(a), a.country.trim()];
            let mut line_y = y + 9;
            for line in lines.iter().filter(|l| !l.is_empty()) {
                out.push(text(x, line_y, 7, Font::Regular, half - 4, *line));
                line_y += 8;
            }
        }
        y += 52;
        out.push(Element::Rule { x: 0, y, width: LABEL_WIDTH, height: 1 });
        y += 5;
    }
    // The items table: description, quantity, weight, value; the long form adds HTS and origin.
    let columns: &[(&str, u32, u32)] = match d.form {
        CustomsForm::Short => &[("Contents", MARGIN, 140), ("Qty", 152, 24), ("Weight", 178, 44), ("Value", 224, 54)],
        CustomsForm::Long => {
            &[("Contents", MARGIN, 84), ("HTS", 96, 42), ("Origin", 140, 24), ("Qty", 166, 20), ("Weight", 188, 36), ("Value", 226, 52)]
        }
    };
    for (title, x, w) in columns {
        out.push(text(*x, y, 7, Font::Bold, *w, *title));
    }
    y += 10;
    let shown = if d.items.len() > MAX_ROWS { MAX_ROWS - 1 } else { d.items.len() };
    for item in &d.items[..shown] {
        let cells: Vec<&str> = match d.form {
            CustomsForm::Short => vec![&item.description, &item.quantity, &item.weight, &item.value],
            CustomsForm::Long => {
                vec![&item.description, &item.hts_number, &item.origin, &item.quantity, &item.weight, &item.value]
            }
        };
        for ((_, x, w), cell) in columns.iter().zip(cells) {
            out.push(text(*x, y, 7, Font::Regular, w - 2, cell));
        }
        y += 10;
    }
    if shown < d.items.len() {
        out.push(text(
            MARGIN,
            y,
            7,
            Font::Regular,
            inner,
            format!("and {} more items (see the commercial invoice)", d.items.len() - shown),
        ));
        y += 10;
    }
    out.push(Element::Rule { x: 0, y: y + 2, width: LABEL_WIDTH, height: 1 });
    y += 8;
    out.push(text(MARGIN, y, 8, Font::Bold, inner, format!("Total value: {}   Total weight: {}", d.total_value, d.total_weight)));
    y += 16;
    // The declaration, over as many lines as it takes at 6 pt.
    for line in wrap(SENDER_DECLARATION, 62) {
        out.push(text(MARGIN, y, 6, Font::Regular, inner, line));
        y += 8;
    }
    y += 14;
    out.push(Element::Rule { x: MARGIN, y, width: 170, height: 1 });
    out.push(Element::Rule { x: 190, y, width: 88, height: 1 });
    out.push(text(MARGIN, y + 3, 6, Font::Regular, 170, "Sender's signature"));
    out.push(text(190, y + 3, 6, Font::Regular, 88, format!("Date {}", iso_date(d.date))));
    out
}

/// `s` in lines of at most `width` characters, broken at spaces.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in s.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
