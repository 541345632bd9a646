//! Reference data embedded from `core/data/` (copied from the project's shared data set,
//! see `core/data/SOURCES.md`): ISO countries, US states and territories, Canadian
//! provinces, and the state of every ZIP3 prefix in use.

use std::collections::HashMap;
use std::sync::OnceLock;

const COUNTRIES_CSV: &str = include_str!("../data/countries.csv");
const US_STATES_CSV: &str = include_str!("../data/us-states.csv");
const CA_PROVINCES_CSV: &str = include_str!("../data/ca-provinces.csv");
const US_ZIP3_CSV: &str = include_str!("../data/us-zip3.csv");

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

struct Tables {
    countries: HashMap<String, Country>,
    us_states: HashMap<String, UsState>,
    provinces: HashMap<String, Province>,
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
        let countries = rows(COUNTRIES_CSV).filter(|r| r.len() > 2).map(|r| (r[0].to_string(), Country)).collect();
        let us_states = rows(US_STATES_CSV).filter(|r| r.len() > 2).map(|r| (r[0].to_string(), UsState)).collect();
        let provinces = rows(CA_PROVINCES_CSV)
            .filter(|r| r.len() > 3)
            .map(|r| (r[0].to_string(), Province { fsa_letters: r[3].to_string() }))
            .collect();
        let mut zip3_state = vec![None; 1000];
        for r in rows(US_ZIP3_CSV) {
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
}
