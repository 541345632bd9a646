//! Addresses: validation by the rules of DECISIONS 5 and the requiredness of each endpoint.

use crate::error::{join_path, Problems};
use crate::refdata;
pub use crate::wire::Address;
use crate::wire::{CompactString, WireAddress};

/// Which endpoint an address belongs to; decides which fields are required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AddressUse {
    /// Create customer (4.9): every field required, phone included.
    Customer,
    /// Update payment method (4.12): company and phone optional.
    PaymentBilling,
    /// Book shipment sender/receiver (4.5): every field required; zip may be null.
    Booking,
    /// `returnTo` of a booking or order: every field optional.
    ReturnTo,
    /// Batch quote sender/receiver: country, and state and zip for US and CA.
    Quote,
    /// Single quote sender/receiver (DECISIONS 9): country, and zip for US and CA; a US
    /// state left out is the state of the ZIP's prefix, a Canadian one stays empty (it
    /// decides nothing a quote answers).
    ReducedQuote,
    /// Order sender/receiver (4.2): name, address1, city, state, zip, country.
    Order,
    /// Schedule pickup (4.7): every field required, phone included.
    Pickup,
    /// Create manifest (4.10): every field but phone required.
    Manifest,
}

/// Countries whose addresses have no postal code (a null zip is allowed for these only).
const NO_POSTAL_CODE: &[&str] = &[
    "AE", "AG", "AO", "AW", "BF", "BI", "BJ", "BO", "BS", "BW", "BZ", "CD", "CF", "CG", "CI", "CK", "CM", "DJ", "DM", "ER", "FJ", "GA",
    "GD", "GH", "GM", "GQ", "GY", "HK", "KI", "KM", "KN", "KP", "LC", "ML", "MO", "MR", "MS", "MW", "NR", "NU", "QA", "RW", "SB", "SC",
    "SL", "SR", "ST", "SY", "TD", "TF", "TG", "TK", "TL", "TO", "TV", "UG", "VU", "YE", "ZW",
];

const MAX_TEXT: usize = 100;

/// Validates `wire` found at JSON path `path`, recording every problem in `p`.
pub(crate) fn validate(p: &mut Problems, path: &str, wire: &WireAddress, usage: AddressUse) -> Address {
    validate_owned(p, path, wire.clone(), usage)
}

/// [`validate`] of an address the caller no longer needs: its strings become the
/// validated address's (trimmed and upper-cased in place) instead of being copied. Each
/// shipment of a batch quote has two addresses, and copying their ten strings each was
/// half the cost of checking them.
pub(crate) fn validate_owned(p: &mut Problems, path: &str, wire: WireAddress, usage: AddressUse) -> Address {
    use AddressUse::*;
    let all_required = matches!(usage, Customer | Booking | Pickup);
    let field = |name: &str| join_path(path, name);
    let text = |p: &mut Problems, name: &str, value: Option<CompactString>, required: bool, non_empty: bool| -> CompactString {
        let Some(v) = value.map(trimmed) else {
            if required {
                p.push(field(name), "is required");
            }
            return CompactString::default();
        };
        if non_empty && v.is_empty() && required {
            p.push(field(name), "must not be empty");
        } else if v.len() > MAX_TEXT && v.chars().count() > MAX_TEXT {
            p.push(field(name), format!("must be at most {MAX_TEXT} characters, found {}", v.chars().count()));
        }
        v
    };
    let needs_name = !matches!(usage, ReturnTo | Quote | ReducedQuote);
    let name = text(p, "name", wire.name, needs_name, true);
    let company = text(p, "company", wire.company, all_required || matches!(usage, Manifest), false);
    let address1 = text(p, "address1", wire.address1, needs_name, true);
    let address2 = text(p, "address2", wire.address2, all_required || matches!(usage, Manifest | PaymentBilling), false);
    let city = text(p, "city", wire.city, needs_name, true);

    let country = match wire.country.map(trimmed).filter(|c| !c.is_empty()) {
        None if usage == ReturnTo => CompactString::default(),
        None => {
            p.push(field("country"), "is required: an ISO 3166-1 two-letter country code");
            CompactString::default()
        }
        Some(mut c) => {
            if !known_code(&c, |code| refdata::country(code).is_some()) {
                p.push(field("country"), format!("expected an ISO 3166-1 two-letter country code, found {c:?}"));
            }
            c.make_ascii_uppercase();
            c
        }
    };

    let state_given = wire.state.is_some();
    let mut state = wire.state.map(trimmed).unwrap_or_default();
    let derive_state = usage == ReducedQuote && state.is_empty();
    if let us @ ("US" | "CA") = country.as_str() {
        let us = us == "US";
        if state.is_empty() {
            if derive_state {
                // worked out from the ZIP below
            } else if usage != ReturnTo || state_given {
                let what = if us { "US state" } else { "Canadian province" };
                p.push(field("state"), format!("is required: a two-letter {what} code"));
            }
        } else if !known_code(&state, |code| if us { refdata::us_state(code).is_some() } else { refdata::province(code).is_some() }) {
            let what =
                if us { "a two-letter US state, territory or military code" } else { "a two-letter Canadian province or territory code" };
            p.push(field("state"), format!("expected {what}, found {state:?}"));
        }
        state.make_ascii_uppercase();
    } else if !state_given && all_required {
        p.push(field("state"), "is required (may be empty outside US and CA)");
    }

    let zip = match wire.zip {
        None if usage == Booking => {
            p.push(field("zip"), "is required (null for a country without postal codes)");
            None
        }
        z => validate_zip(p, path, z.flatten(), &country, &state, usage),
    };
    if derive_state && country == "US" {
        if let Some(zip) = zip.as_deref().filter(|z| is_us_zip(z)) {
            match refdata::zip3_state(zip) {
                Some(code) => state = code.into(),
                None => p.push(field("state"), format!("is required: ZIP code {zip} is in no ZIP3 prefix in use, so it names no state")),
            }
        }
    }

    let phone = match wire.phone.map(trimmed).filter(|v| !v.is_empty()) {
        None => {
            if matches!(usage, Customer | Booking | Pickup) {
                p.push(field("phone"), "is required");
            }
            CompactString::default()
        }
        Some(phone) => {
            if let Err(message) = check_phone(&phone, &country) {
                p.push(field("phone"), message);
            }
            phone
        }
    };

    let email = match wire.email.map(trimmed) {
        Some(e) if !e.is_empty() => {
            if !is_email(&e) {
                p.push(field("email"), format!("expected an e-mail address like name@example.com, found {e:?}"));
            }
            e
        }
        _ => CompactString::default(),
    };

    Address { name, company, address1, address2, city, state, zip, country, phone, email }
}

/// `s` without leading and trailing whitespace.
fn trimmed(s: CompactString) -> CompactString {
    let t = s.trim();
    if t.len() == s.len() {
        s
    } else {
        CompactString::from(t)
    }
}

/// Whether `code`, in upper case, is two characters that `known` accepts.
fn known_code(code: &str, known: impl Fn(&str) -> bool) -> bool {
    let &[a, b] = code.as_bytes() else { return false };
    std::str::from_utf8(&[a.to_ascii_uppercase(), b.to_ascii_uppercase()]).is_ok_and(known)
}

fn validate_zip(
    p: &mut Problems,
    path: &str,
    zip: Option<CompactString>,
    country: &str,
    state: &str,
    usage: AddressUse,
) -> Option<CompactString> {
    // The path is built only for a problem: most addresses have none.
    let field = || join_path(path, "zip");
    let zip = zip.map(trimmed).filter(|z| !z.is_empty());
    let Some(zip) = zip else {
        let required = match usage {
            AddressUse::ReturnTo => false,
            // The booking payload allows null, but only where the country has no postal codes.
            AddressUse::Booking => !NO_POSTAL_CODE.contains(&country) && !country.is_empty(),
            AddressUse::Quote | AddressUse::ReducedQuote => matches!(country, "US" | "CA"),
            _ => !NO_POSTAL_CODE.contains(&country),
        };
        if required {
            p.push(field(), format!("is required for country {country}"));
        }
        return None;
    };
    match country {
        "US" => {
            if !is_us_zip(&zip) {
                p.push(field(), format!("expected a US ZIP code like 12345 or 12345-6789, found {zip:?}"));
            }
            Some(zip)
        }
        "CA" => match normalize_ca_postal(&zip) {
            Some(code) => {
                if let Some(province) = refdata::province(state) {
                    if !code.starts_with(|c: char| province.fsa_letters.contains(c)) {
                        p.push(
                            field(),
                            format!(
                                "postal code {code} does not belong to province {state} (its codes start with {})",
                                province.fsa_letters
                            ),
                        );
                    }
                }
                Some(code.into())
            }
            None => {
                p.push(field(), format!("expected a Canadian postal code like K1A 0B1, found {zip:?}"));
                Some(zip)
            }
        },
        _ => {
            if zip.chars().count() > 20 {
                p.push(field(), "must be at most 20 characters");
            }
            Some(zip)
        }
    }
}

/// `12345` or `12345-6789`.
pub(crate) fn is_us_zip(zip: &str) -> bool {
    let b = zip.as_bytes();
    match b.len() {
        5 => b.iter().all(u8::is_ascii_digit),
        10 => b[..5].iter().all(u8::is_ascii_digit) && b[5] == b'-' && b[6..].iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// `A1A 1A1` (space optional, any case) normalised to upper case with the space.
pub(crate) fn normalize_ca_postal(zip: &str) -> Option<String> {
    let compact: Vec<char> = zip.chars().filter(|c| *c != ' ').map(|c| c.to_ascii_uppercase()).collect();
    if compact.len() != 6 {
        return None;
    }
    let ok = compact
        .iter()
        .enumerate()
        .all(|(i, c)| if i % 2 == 0 { c.is_ascii_uppercase() && !"DFIOQU".contains(*c) } else { c.is_ascii_digit() });
    ok.then(|| format!("{}{}{} {}{}{}", compact[0], compact[1], compact[2], compact[3], compact[4], compact[5]))
}

/// The phone rule of DECISIONS 5.
pub(crate) fn check_phone(phone: &str, country: &str) -> Result<(), String> {
    let north_america = matches!(country, "US" | "CA");
    let Some(n) = phone_digits(phone, north_america) else {
        return Err(format!("expected a phone number of digits, spaces, dashes, dots and parentheses, found {phone:?}"));
    };
    if north_america && n != 10 {
        Err(format!("expected a 10-digit phone number for country {country}, found {n} digits in {phone:?}"))
    } else if !north_america && !(6..=15).contains(&n) {
        Err(format!("expected a phone number of 6 to 15 digits, found {n} digits in {phone:?}"))
    } else {
        Ok(())
    }
}

/// How many digits `phone` has without its separators and its country prefix (`+1` in
/// North America, `+` elsewhere), or `None` if anything else is left. The number is read
/// twice rather than copied.
fn phone_digits(phone: &str, north_america: bool) -> Option<usize> {
    let kept = || phone.chars().filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')'));
    let prefix = if north_america { "+1" } else { "+" };
    let skip = if kept().take(prefix.len()).eq(prefix.chars()) { prefix.len() } else { 0 };
    kept().skip(skip).all(|c| c.is_ascii_digit()).then(|| kept().count() - skip)
}

/// A plain shape check: one `@`, something before it, a dotted domain, no spaces.
pub(crate) fn is_email(e: &str) -> bool {
    // ASCII text is checked byte by byte (its whitespace and control characters are the
    // bytes up to the space, and DEL); decoding characters was most of the cost.
    let clean =
        if e.is_ascii() { e.bytes().all(|b| b > b' ' && b != 0x7f) } else { !e.chars().any(|c| c.is_whitespace() || c.is_control()) };
    if e.len() > 254 || !clean {
        return false;
    }
    let Some((local, domain)) = e.split_once('@') else { return false };
    let domain = domain.as_bytes();
    !local.is_empty()
        && !domain.contains(&b'@')
        && domain.contains(&b'.')
        && !domain.starts_with(b".")
        && !domain.ends_with(b".")
        && !domain.windows(2).any(|w| w == b"..")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_email` as first written, on characters and substrings.
    fn is_email_by_chars(e: &str) -> bool {
        if e.len() > 254 || e.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return false;
        }
        let Some((local, domain)) = e.split_once('@') else { return false };
        !local.is_empty()
            && !domain.contains('@')
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
    }

    proptest::proptest! {
        #[test]
        fn email_check_is_the_check_on_characters(e in "[a.@ \t\u{7f}\u{85}\u{a0}é\u{1}-]{0,12}") {
            proptest::prop_assert_eq!(is_email(&e), is_email_by_chars(&e));
        }
    }

    /// The digits `check_phone` first counted, on a copy of the number.
    fn phone_digits_by_copy(phone: &str, north_america: bool) -> Option<usize> {
        let mut digits: String = phone.chars().filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')')).collect();
        if north_america {
            if let Some(rest) = digits.strip_prefix("+1") {
                digits = rest.to_string();
            }
        } else if let Some(rest) = digits.strip_prefix('+') {
            digits = rest.to_string();
        }
        digits.chars().all(|c| c.is_ascii_digit()).then_some(digits.len())
    }

    proptest::proptest! {
        #[test]
        fn phone_digits_are_the_digits_of_a_copy(phone in "[+1 ().-]{0,3}[0-9 ().-]{0,17}[a+]?", north_america: bool) {
            proptest::prop_assert_eq!(phone_digits(&phone, north_america), phone_digits_by_copy(&phone, north_america));
        }

        #[test]
        fn trimming_is_trim(s in "[ \t\u{a0}]{0,3}[a é]{0,6}[ \n\u{3000}]{0,3}") {
            proptest::prop_assert_eq!(trimmed(CompactString::from(s.as_str())), s.trim());
        }
    }

    #[test]
    fn email_shapes() {
        for good in ["a@b.c", "first.last@example.co.uk", "é@b.c"] {
            assert!(is_email(good), "{good}");
        }
        for bad in ["", "a", "@b.c", "a@b", "a@.b", "a@b.", "a@b..c", "a@b@c.d", "a b@c.d", "a@b.c\u{7f}", "a@b.c\u{a0}"] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn us_zip_shapes() {
        assert!(is_us_zip("10001"));
        assert!(is_us_zip("10001-1234"));
        assert!(!is_us_zip("1000"));
        assert!(!is_us_zip("10001 1234"));
        assert!(!is_us_zip("1000a"));
    }

    #[test]
    fn canadian_postal_codes_are_normalised() {
        assert_eq!(normalize_ca_postal("k1a0b1").as_deref(), Some("K1A 0B1"));
        assert_eq!(normalize_ca_postal("K1A 0B1").as_deref(), Some("K1A 0B1"));
        assert_eq!(normalize_ca_postal("D1A 0B1"), None);
        assert_eq!(normalize_ca_postal("K1A0B"), None);
    }

    #[test]
    fn phones() {
        assert!(check_phone("+1 (555) 123-4567", "US").is_ok());
        assert!(check_phone("555.123.4567", "CA").is_ok());
        assert!(check_phone("1-555-123-4567", "US").is_err());
        assert!(check_phone("+44 20 7946 0958", "GB").is_ok());
        assert!(check_phone("12345", "GB").is_err());
        assert!(check_phone("555-CALL-NOW", "US").is_err());
    }

    #[test]
    fn emails() {
        assert!(is_email("ann@example.com"));
        assert!(!is_email("ann@example"));
        assert!(!is_email("ann example.com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("a@b@example.com"));
    }
}
