//! Reference data embedded from `core/data/` (copied from the project's shared data set,
//! see `core/data/SOURCES.md`): ISO countries, US states and territories, Canadian
//! provinces, and the state of every ZIP3 prefix in use.

use std::sync::OnceLock;

crate::embedded::default_text!(
    /// ISO 3166-1 countries (`core/data/countries.csv`).
    countries_csv,
    "data/countries.csv",
    "countries.csv"
);
const US_STATES_CSV: &str = include_str!("../data/us-states.csv");
const CA_PROVINCES_CSV: &str = include_str!("../data/ca-provinces.csv");
crate::embedded::default_text!(
    /// The ZIP3 prefixes in use, with their state and a point (`core/data/us-zip3.csv`):
    /// also the points the default zone chart is computed from.
    us_zip3_csv,
    "data/us-zip3.csv",
    "us-zip3.csv"
);

/// A country of ISO 3166-1 (plus XK, which carriers use).
#[derive(Debug, Clone)]
pub(crate) struct Country;

/// A US state, district, territory, freely associated state or military code.
#[derive(Debug, Clone)]
pub(crate) struct UsState;

/// A Canadian province or territory and the letters its postal codes start with.
#[derive(Debug, Clone)]
pub(crate) struct Province {
    pub fsa_letters: String,
}

/// Entries keyed by a code of two upper-case ASCII letters, found by indexing: every
/// address of every request looks up its country and state, and hashing the code cost
/// more than the rest of the check.
struct ByCode2<T> {
    slots: Vec<Option<T>>,
}

/// The place of a code of two upper-case ASCII letters among all such codes (`AA` is 0,
/// `ZZ` is 675), or `None` for any other text: the index of the code tables here and of
/// the catalog's country sets.
pub(crate) fn code2_index(code: &str) -> Option<usize> {
    match code.as_bytes() {
        &[a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => Some(usize::from(a - b'A') * 26 + usize::from(b - b'A')),
        _ => None,
    }
}

impl<T> ByCode2<T> {
    fn get(&self, code: &str) -> Option<&T> {
        self.slots.get(code2_index(code)?)?.as_ref()
    }
}

impl<'a, T> FromIterator<(&'a str, T)> for ByCode2<T> {
    /// Codes that are not two upper-case letters are left out (the data has none; a test
    /// checks every row is kept).
    fn from_iter<I: IntoIterator<Item = (&'a str, T)>>(entries: I) -> Self {
        let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(26 * 26).collect();
        for (code, value) in entries {
            if let Some(slot) = code2_index(code).and_then(|i| slots.get_mut(i)) {
                *slot = Some(value);
            }
        }
        ByCode2 { slots }
    }
}

struct Tables {
    countries: ByCode2<Country>,
    us_states: ByCode2<UsState>,
    provinces: ByCode2<Province>,
    /// State of each ZIP3 prefix, indexed by the prefix's number (0..1000).
    zip3_state: Vec<Option<String>>,
}

/// Splits one CSV line of the shared data (fields may be quoted, quotes hold no quotes).
fn split_csv(line: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    let mut rest = line;
    loop {
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').unwrap_or(quoted.len());
            fields.push(&quoted[..end]);
            rest = quoted.get(end + 1..).unwrap_or("");
            rest = rest.strip_prefix(',').unwrap_or(rest);
            if rest.is_empty() {
                break;
            }
        } else {
            match rest.find(',') {
                Some(i) => {
                    fields.push(&rest[..i]);
                    rest = &rest[i + 1..];
                }
                None => {
                    fields.push(rest);
                    break;
                }
            }
        }
    }
    fields
}

fn rows(csv: &str) -> impl Iterator<Item = Vec<&str>> {
    csv.lines().skip(1).filter(|l| !l.trim().is_empty()).map(split_csv)
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let countries = rows(countries_csv()).filter(|r| r.len() > 2).map(|r| (r[0], Country)).collect();
        let us_states = rows(US_STATES_CSV).filter(|r| r.len() > 2).map(|r| (r[0], UsState)).collect();
        let provinces =
            rows(CA_PROVINCES_CSV).filter(|r| r.len() > 3).map(|r| (r[0], Province { fsa_letters: r[3].to_string() })).collect();
        let mut zip3_state = vec![None; 1000];
        for r in rows(us_zip3_csv()) {
            if let (Some(zip3), Some(state)) = (r.first(), r.get(1)) {
                if let Ok(i) = zip3.parse::<usize>() {
                    if let Some(slot) = zip3_state.get_mut(i) {
                        *slot = Some(state.to_string());
                    }
                }
            }
        }
        Tables { countries, us_states, provinces, zip3_state }
    })
}

/// The country with ISO alpha-2 `code` (upper case), if it exists.
pub(crate) fn country(code: &str) -> Option<&'static Country> {
    tables().countries.get(code)
}

/// The US state, DC, territory or military code `code`, if it exists.
pub(crate) fn us_state(code: &str) -> Option<&'static UsState> {
    tables().us_states.get(code)
}

/// The Canadian province or territory `code`, if it exists.
pub(crate) fn province(code: &str) -> Option<&'static Province> {
    tables().provinces.get(code)
}

/// The dominant state of the ZIP3 prefix of a 5-digit `zip`, if the prefix is in use.
pub(crate) fn zip3_state(zip: &str) -> Option<&'static str> {
    let prefix: usize = zip.get(..3)?.parse().ok()?;
    tables().zip3_state.get(prefix)?.as_deref()
}

/// US territories and freely associated states that carry their own ISO country code
/// but use US ZIP codes (the postal carrier treats them as domestic).
pub(crate) const US_POSTAL_TERRITORIES: [&str; 8] = ["PR", "VI", "GU", "AS", "MP", "FM", "MH", "PW"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_with_commas_are_one_field() {
        assert_eq!(
            split_csv(r#"AE,"Armed Forces Europe, Middle East",military,,10"#),
            vec!["AE", "Armed Forces Europe, Middle East", "military", "", "10"]
        );
    }

    #[test]
    fn tables_hold_the_shared_data() {
        assert!(country("US").is_some());
        assert!(country("XK").is_some());
        assert!(country("ZZ").is_none());
        assert!(us_state("AE").is_some());
        assert!(us_state("DC").is_some());
        assert!(us_state("XX").is_none());
        assert_eq!(province("QC").map(|p| p.fsa_letters.as_str()), Some("GHJ"));
        assert_eq!(zip3_state("10001"), Some("NY"));
        assert_eq!(zip3_state("00601"), Some("PR"));
        assert_eq!(zip3_state("00000"), None);
    }

    #[test]
    fn every_code_of_the_data_is_found_and_nothing_else() {
        for (csv, min_fields, found) in [
            (countries_csv(), 3, (|c| country(c).is_some()) as fn(&str) -> bool),
            (US_STATES_CSV, 3, |c| us_state(c).is_some()),
            (CA_PROVINCES_CSV, 4, |c| province(c).is_some()),
        ] {
            let codes: Vec<&str> = rows(csv).filter(|r| r.len() >= min_fields).map(|r| r[0]).collect();
            assert!(codes.len() > 10);
            for code in &codes {
                assert!(found(code), "{code}");
                assert!(!found(&code.to_ascii_lowercase()), "{code} lower case");
                assert!(!found(&format!("{code} ")), "{code} with a space");
            }
            let listed = (b'A'..=b'Z').flat_map(|a| (b'A'..=b'Z').map(move |b| String::from_utf8(vec![a, b]).unwrap()));
            assert_eq!(listed.filter(|c| found(c)).count(), codes.len());
        }
        for odd in ["", "U", "USA", "U1", "é", "\u{0}S"] {
            assert!(country(odd).is_none() && us_state(odd).is_none() && province(odd).is_none(), "{odd:?}");
        }
    }
}
