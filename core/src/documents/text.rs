//! Text for the standard PDF fonts and for thermal printers: character repertoires,
//! widths, and fitting a line into a given width.
//!
//! The PDF documents use the standard Type 1 fonts Helvetica and Helvetica-Bold with
//! `WinAnsiEncoding`, so every character must become one WinAnsi byte. Characters
//! outside that repertoire are transliterated where a plain Latin spelling is obvious
//! (`ł` → `l`, `ő` → `o`) and become `?` otherwise, so any input renders.

/// Helvetica advance widths (1/1000 em) of ASCII 32..=126, from the font's AFM file.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // ' '../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0..9
    278, 278, 584, 584, 584, 556, 1015, // :..@
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A..M
    722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N..Z
    278, 278, 278, 469, 556, 333, // [..`
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a..m
    556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n..z
    334, 260, 334, 584, // {..~
];

/// Helvetica-Bold advance widths (1/1000 em) of ASCII 32..=126.
const HELVETICA_BOLD: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // ' '../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0..9
    333, 333, 584, 584, 584, 611, 975, // :..@
    722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, // A..M
    722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N..Z
    333, 278, 333, 584, 556, 333, // [..`
    556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, // a..m
    611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, // n..z
    389, 280, 389, 584, // {..~
];

/// One of the two standard fonts the documents use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Font {
    Regular,
    Bold,
}

/// The width of one WinAnsi byte in 1/1000 em. Bytes above ASCII are measured by their
/// ASCII transliteration, which is never narrower than the glyph by much (accented
/// letters share their base letter's width); unknown ones count as a full em.
pub(crate) fn byte_width(font: Font, b: u8) -> u32 {
    let table = match font {
        Font::Regular => &HELVETICA,
        Font::Bold => &HELVETICA_BOLD,
    };
    if (32..=126).contains(&b) {
        return u32::from(table[usize::from(b - 32)]);
    }
    match winansi_to_ascii(b) {
        "" | "?" => 1000,
        s => s.bytes().map(|c| if (32..=126).contains(&c) { u32::from(table[usize::from(c - 32)]) } else { 1000 }).sum(),
    }
}

/// The WinAnsi (Windows-1252) byte for a character, transliterating what the encoding
/// lacks. Control characters (tabs, line breaks) become spaces.
pub(crate) fn winansi_byte(c: char) -> u8 {
    let u = u32::from(c);
    match u {
        0x20..=0x7E => u as u8,
        0x00..=0x1F | 0x7F..=0x9F | 0xA0 | 0x2028 | 0x2029 => b' ',
        0xAD => b'-',
        0xA1..=0xFF => u as u8,
        _ => match c {
            '€' => 0x80,
            '‚' => 0x82,
            'ƒ' => 0x83,
            '„' => 0x84,
            '…' => 0x85,
            '†' => 0x86,
            '‡' => 0x87,
            'ˆ' => 0x88,
            '‰' => 0x89,
            'Š' => 0x8A,
            '‹' => 0x8B,
            'Œ' => 0x8C,
            'Ž' => 0x8E,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '˜' => 0x98,
            '™' => 0x99,
            'š' => 0x9A,
            '›' => 0x9B,
            'œ' => 0x9C,
            'ž' => 0x9E,
            'Ÿ' => 0x9F,
            _ => latin_fallback(c),
        },
    }
}

/// A plain letter for the common letters of Latin Extended-A (Central European,
/// Baltic, Turkish, Romanian names), `?` for anything else.
fn latin_fallback(c: char) -> u8 {
    let (upper, base) = match c {
        'Ā' | 'Ă' | 'Ą' => (true, b'a'),
        'ā' | 'ă' | 'ą' => (false, b'a'),
        'Ć' | 'Ĉ' | 'Ċ' | 'Č' => (true, b'c'),
        'ć' | 'ĉ' | 'ċ' | 'č' => (false, b'c'),
        'Ď' | 'Đ' => (true, b'd'),
        'ď' | 'đ' => (false, b'd'),
        'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => (true, b'e'),
        'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => (false, b'e'),
        'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => (true, b'g'),
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => (false, b'g'),
        'Ĥ' | 'Ħ' => (true, b'h'),
        'ĥ' | 'ħ' => (false, b'h'),
        'Ĩ' | 'Ī' | 'Ĭ' | 'Į' | 'İ' => (true, b'i'),
        'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => (false, b'i'),
        'Ĵ' => (true, b'j'),
        'ĵ' => (false, b'j'),
        'Ķ' => (true, b'k'),
        'ķ' => (false, b'k'),
        'Ĺ' | 'Ļ' | 'Ľ' | 'Ŀ' | 'Ł' => (true, b'l'),
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => (false, b'l'),
        'Ń' | 'Ņ' | 'Ň' => (true, b'n'),
        'ń' | 'ņ' | 'ň' => (false, b'n'),
        'Ō' | 'Ŏ' | 'Ő' => (true, b'o'),
        'ō' | 'ŏ' | 'ő' => (false, b'o'),
        'Ŕ' | 'Ŗ' | 'Ř' => (true, b'r'),
        'ŕ' | 'ŗ' | 'ř' => (false, b'r'),
        'Ś' | 'Ŝ' | 'Ş' | 'Ș' => (true, b's'),
        'ś' | 'ŝ' | 'ş' | 'ș' => (false, b's'),
        'Ţ' | 'Ť' | 'Ŧ' | 'Ț' => (true, b't'),
        'ţ' | 'ť' | 'ŧ' | 'ț' => (false, b't'),
        'Ũ' | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => (true, b'u'),
        'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => (false, b'u'),
        'Ŵ' => (true, b'w'),
        'ŵ' => (false, b'w'),
        'Ŷ' => (true, b'y'),
        'ŷ' => (false, b'y'),
        'Ź' | 'Ż' => (true, b'z'),
        'ź' | 'ż' => (false, b'z'),
        _ => return b'?',
    };
    if upper {
        base.to_ascii_uppercase()
    } else {
        base
    }
}

/// A plain ASCII spelling of a WinAnsi byte, for printers whose fonts only promise
/// ASCII (EPL2). Unknown bytes become `?`.
pub(crate) fn winansi_to_ascii(b: u8) -> &'static str {
    const PRINTABLE: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    if (32..=126).contains(&b) {
        let i = usize::from(b - 32);
        return PRINTABLE.get(i..=i).unwrap_or("?");
    }
    match b {
        0x80 => "EUR",
        0x82 | 0x91 | 0x92 => "'",
        0x84 | 0x93 | 0x94 => "\"",
        0x83 => "f",
        0x85 => "...",
        0x8B => "<",
        0x9B => ">",
        0x8A => "S",
        0x9A => "s",
        0x8C => "OE",
        0x9C => "oe",
        0x8E => "Z",
        0x9E => "z",
        0x9F | 0xDD => "Y",
        0x95 | 0xB7 => "*",
        0x96 | 0x97 | 0xAD => "-",
        0x98 => "~",
        0x99 => "TM",
        0xA0 => " ",
        0xA9 => "(C)",
        0xAE => "(R)",
        0xB0 => "o",
        0xC0..=0xC5 => "A",
        0xC6 => "AE",
        0xC7 => "C",
        0xC8..=0xCB => "E",
        0xCC..=0xCF => "I",
        0xD0 => "D",
        0xD1 => "N",
        0xD2..=0xD6 | 0xD8 => "O",
        0xD7 => "x",
        0xD9..=0xDC => "U",
        0xDE => "TH",
        0xDF => "ss",
        0xE0..=0xE5 => "a",
        0xE6 => "ae",
        0xE7 => "c",
        0xE8..=0xEB => "e",
        0xEC..=0xEF => "i",
        0xF0 => "d",
        0xF1 => "n",
        0xF2..=0xF6 | 0xF8 => "o",
        0xF7 => "/",
        0xF9..=0xFC => "u",
        0xFD | 0xFF => "y",
        0xFE => "th",
        _ => "?",
    }
}

/// `s` as WinAnsi bytes, cut to at most `max_width` points at `size` points, with `...`
/// at the end when something was cut.
pub(crate) fn fit_winansi(s: &str, font: Font, size: u32, max_width: u32) -> Vec<u8> {
    let budget = u64::from(max_width) * 1000;
    let ellipsis = u64::from(3 * byte_width(font, b'.')) * u64::from(size);
    let mut out = Vec::with_capacity(s.len().min(128));
    let mut used = 0u64;
    // Where the text would be cut if an ellipsis has to follow.
    let mut cut = None;
    for c in s.chars() {
        let b = winansi_byte(c);
        let w = u64::from(byte_width(font, b)) * u64::from(size);
        if used + w > budget {
            let keep = cut.unwrap_or(out.len());
            out.truncate(keep);
            while out.last() == Some(&b' ') {
                out.pop();
            }
            if ellipsis <= budget {
                out.extend_from_slice(b"...");
            }
            return out;
        }
        if cut.is_none() && used + w + ellipsis > budget {
            cut = Some(out.len());
        }
        used += w;
        out.push(b);
    }
    out
}

/// The largest size from `size` down to `min_size` at which `s` fits in `max_width`
/// points, or `min_size` when it fits at none.
pub(crate) fn shrink_to_fit(s: &str, font: Font, size: u32, min_size: u32, max_width: u32) -> u32 {
    let budget = u64::from(max_width) * 1000;
    let mut em = 0u64;
    for c in s.chars() {
        em += u64::from(byte_width(font, winansi_byte(c)));
        if em * u64::from(min_size) > budget {
            return min_size;
        }
    }
    let mut candidate = size.max(min_size);
    while candidate > min_size && em * u64::from(candidate) > budget {
        candidate -= 1;
    }
    candidate
}

/// `s` in plain printable ASCII (through WinAnsi and its transliteration), at most
/// `max_chars` characters long, with `...` when cut.
pub(crate) fn fit_ascii(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars + 3));
    let mut count = 0usize;
    for c in s.chars() {
        for a in winansi_to_ascii(winansi_byte(c)).chars() {
            if count == max_chars {
                return ellipsize(out, max_chars);
            }
            out.push(a);
            count += 1;
        }
    }
    out
}

fn ellipsize(mut out: String, max_chars: usize) -> String {
    // All characters of `out` are ASCII, so byte and character counts agree.
    if max_chars >= 3 {
        out.truncate(max_chars - 3);
        while out.ends_with(' ') {
            out.pop();
        }
        out.push_str("...");
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn winansi_covers_latin1_and_the_specials() {
        assert_eq!(winansi_byte('A'), b'A');
        assert_eq!(winansi_byte('é'), 0xE9);
        assert_eq!(winansi_byte('€'), 0x80);
        assert_eq!(winansi_byte('—'), 0x97);
        assert_eq!(winansi_byte('ł'), b'l');
        assert_eq!(winansi_byte('Ő'), b'O');
        assert_eq!(winansi_byte('日'), b'?');
        assert_eq!(winansi_byte('\n'), b' ');
        assert_eq!(winansi_byte('\u{1F4E6}'), b'?');
    }

    #[test]
    fn ascii_transliteration() {
        assert_eq!(fit_ascii("Zürich Straße 5", 100), "Zurich Strasse 5");
        assert_eq!(fit_ascii("Łódź", 100), "Lodz");
        assert_eq!(fit_ascii("東京", 100), "??");
        assert_eq!(fit_ascii("abcdefghij", 6), "abc...");
        assert_eq!(fit_ascii("abcdef", 6), "abcdef");
        assert_eq!(fit_ascii("", 6), "");
        assert_eq!(fit_ascii("abcdef", 2), "ab");
    }

    #[test]
    fn fitting_by_width() {
        // "0000" is 4 × 556 = 2224/1000 em: 22.24 pt at 10 pt.
        assert_eq!(fit_winansi("0000", Font::Regular, 10, 23), b"0000".to_vec());
        let cut = fit_winansi("0000000000", Font::Regular, 10, 23);
        assert!(cut.ends_with(b"..."));
        let width: u32 = cut.iter().map(|&b| byte_width(Font::Regular, b)).sum();
        assert!(width * 10 <= 23 * 1000);
        assert_eq!(fit_winansi("", Font::Bold, 10, 0), Vec::<u8>::new());
        assert!(fit_winansi("abc", Font::Bold, 10, 0).is_empty());
        assert_eq!(shrink_to_fit("0000", Font::Regular, 16, 8, 23), 10);
        assert_eq!(shrink_to_fit("0000", Font::Regular, 16, 8, 1), 8);
    }
}
