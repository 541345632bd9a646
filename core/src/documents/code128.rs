//! Code 128 for the tracking and manifest barcodes.
//!
//! `barcoders` holds the symbol table, the mod-103 check and the stop pattern; this file
//! chooses the code sets, which `barcoders` leaves to the caller: runs of digits go in
//! set C (two digits a symbol, which keeps a 22-digit postal number short enough for a
//! 4-inch label), everything else in set B, following the rules of ISO/IEC 15417
//! annex E.

use barcoders::sym::code128::Code128;

/// `barcoders`' markers for "start or switch to set B / set C".
const SET_B: char = 'Ɓ';
const SET_C: char = 'Ć';

/// Whether `data` can be drawn as a Code 128 barcode that scans back to exactly
/// `data`: non-empty printable ASCII. Anything else is printed as text only, so a label
/// never carries a barcode of something other than its number.
///
/// Data longer than [`MAX_LEN`] is refused too: no page of ours could print it at a
/// scannable module width, and refusing early keeps hostile input cheap.
pub(crate) fn encodable(data: &str) -> bool {
    !data.is_empty() && data.len() <= MAX_LEN && data.bytes().all(|b| (32..=126).contains(&b))
}

/// The longest data drawn as a barcode (a US Letter page fits about 80 characters).
pub(crate) const MAX_LEN: usize = 128;

/// The modules of the symbol (quiet zones excluded) as runs of bars:
/// `(start module, width in modules)`, and the total width in modules.
///
/// `None` when `data` is not [`encodable`].
pub(crate) fn bars(data: &str) -> Option<(Vec<(u32, u32)>, u32)> {
    if !encodable(data) {
        return None;
    }
    let modules = Code128::new(code_sets(data)).ok()?.encode();
    let mut runs = Vec::with_capacity(modules.len() / 3);
    let mut start = None;
    let mut total = 0u32;
    for (i, &m) in modules.iter().enumerate() {
        let i = u32::try_from(i).ok()?;
        match (m == 1, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i - s));
                start = None;
            }
            _ => {}
        }
        total = i + 1;
    }
    if let Some(s) = start {
        runs.push((s, total - s));
    }
    Some((runs, total))
}

/// The width of the symbol in modules, quiet zones excluded, as [`bars`] would draw it.
pub(crate) fn module_count(data: &str) -> Option<u32> {
    bars(data).map(|(_, total)| total)
}

/// `data` with `barcoders`' code set markers: start in C when the data opens with four
/// or more digits (or is an even run of two), otherwise in B; switch to C for a run of
/// at least four digits at the end or six in the middle, keeping C runs even by leaving
/// an odd first digit in B.
fn code_sets(data: &str) -> String {
    let b = data.as_bytes();
    let mut out = String::with_capacity(data.len() + 8);
    let mut i = 0;
    let mut in_c = false;
    while i < b.len() {
        let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let at_start = i == 0;
        let at_end = i + run == b.len();
        let use_c = if at_start {
            run >= 4 || (at_end && run == 2)
        } else if at_end {
            run >= 4
        } else {
            run >= 6
        };
        if use_c {
            let mut from = i;
            if run % 2 == 1 {
                // An odd run: its first digit stays in B.
                if at_start || in_c {
                    out.push(SET_B);
                }
                out.push(char::from(b[i]));
                from += 1;
            }
            out.push(SET_C);
            in_c = true;
            for &d in &b[from..i + run] {
                out.push(char::from(d));
            }
            i += run;
        } else {
            let end = if run > 0 { i + run } else { i + b[i..].iter().take_while(|c| !c.is_ascii_digit()).count() };
            if at_start || in_c {
                out.push(SET_B);
                in_c = false;
            }
            for &c in &b[i..end] {
                out.push(char::from(c));
            }
            i = end;
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Decodes modules back to symbol values: every symbol is 11 modules, the stop 13.
    fn symbol_values(data: &str) -> Vec<u16> {
        // The patterns of values 0..=106 as bar/space widths, from the standard.
        const WIDTHS: [&str; 107] = [
            "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213", "221312", "231212",
            "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132", "221231", "213212", "223112", "312131",
            "311222", "321122", "321221", "312212", "322112", "322211", "212123", "212321", "232121", "111323", "131123", "131321",
            "112313", "132113", "132311", "211313", "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121",
            "313121", "211331", "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
            "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214", "112412", "122114",
            "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111", "111242", "121142", "121241", "114212",
            "124112", "124211", "411212", "421112", "421211", "212141", "214121", "412121", "111143", "111341", "131141", "114113",
            "114311", "411113", "411311", "113141", "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
        ];
        let (runs, total) = bars(data).unwrap();
        let mut modules = vec![0u8; total as usize];
        for (s, w) in runs {
            for m in &mut modules[s as usize..(s + w) as usize] {
                *m = 1;
            }
        }
        let mut values = Vec::new();
        for chunk in modules.chunks(11) {
            if chunk.len() < 11 {
                break;
            }
            let mut widths = String::new();
            let mut j = 0;
            while j < chunk.len() {
                let run = chunk[j..].iter().take_while(|&&m| m == chunk[j]).count();
                widths.push(char::from(b'0' + run as u8));
                j += run;
            }
            let v = WIDTHS.iter().position(|w| w.starts_with(&widths) && widths.len() == 6);
            values.push(v.map(|v| v as u16).unwrap_or(999));
        }
        values
    }

    #[test]
    fn digits_use_set_c_and_the_check_is_mod_103() {
        // Start C (105), 12 34 56, check = (105 + 12 + 2·34 + 3·56) mod 103 = 44.
        let v = symbol_values("123456");
        assert_eq!(v[..5], [105, 12, 34, 56, 44]);
        let (_, total) = bars("123456").unwrap();
        assert_eq!(total, 5 * 11 + 13);
    }

    #[test]
    fn mixed_data_switches_sets() {
        assert_eq!(code_sets("1Z999AA10123456784"), "Ɓ1Z999AA1Ć0123456784".to_string());
        // Two digits at the end are no shorter in C (the switch costs a symbol).
        assert_eq!(code_sets("AB12"), "ƁAB12");
        assert_eq!(code_sets("AB1234"), "ƁABĆ1234");
        assert_eq!(code_sets("12345"), "Ɓ1Ć2345");
        assert_eq!(code_sets("12"), "Ć12");
        assert_eq!(code_sets("1"), "Ɓ1");
        assert_eq!(code_sets("123456A"), "Ć123456ƁA");
        assert_eq!(code_sets("A123B"), "ƁA123B");
        assert_eq!(code_sets("A1234567B"), "ƁA1Ć234567ƁB");
        // Start B (104), 'A' = 33, check (104 + 33) mod 103 = 34.
        assert_eq!(symbol_values("A")[..3], [104, 33, 34]);
    }

    #[test]
    fn every_printable_ascii_encodes() {
        let all: String = (32u8..=126).map(char::from).collect();
        assert!(bars(&all).is_some());
        for n in ["1Z999AA10123456784", "9400100000000000000006", "RR123456785US", "0"] {
            assert!(bars(n).is_some(), "{n}");
        }
        assert!(bars("").is_none());
        assert!(bars("Zürich").is_none());
        assert!(bars("a\tb").is_none());
    }
}
