//! US domestic zoning: ZIP3 centroid distance bands, military gateways and the
//! Pacific territories that have no ZIP prefix of their own.
//!
//! The distance table is computed once per process (lazily, on first use) from the
//! embedded `us-zip3.csv` with integer fixed-point arithmetic only: no floating point,
//! so the table is identical on every platform. It holds one `u8` zone (1-8, 0 = no
//! coordinates) per pair of points; a lookup is one array index.

use std::sync::OnceLock;

use super::{Place, RateError, Zone};

/// Points 0..=999 are ZIP3 prefixes; the five after them are Pacific islands that
/// share ZIP prefixes with Hawaii (967) and Guam (969).
const PT_AS: u16 = 1000;
const PT_MP: u16 = 1001;
const PT_FM: u16 = 1002;
const PT_MH: u16 = 1003;
const PT_PW: u16 = 1004;
const POINTS: usize = 1005;

/// Our own points for the islands without a prefix (degrees x 10^4): Pago Pago,
/// Saipan, Palikir (Pohnpei), Majuro, Koror.
const PACIFIC: [(u16, i64, i64); 5] = [
    (PT_AS, -142_756, -1_707_020),
    (PT_MP, 151_850, 1_457_467),
    (PT_FM, 69_248, 1_581_610),
    (PT_MH, 70_897, 1_713_803),
    (PT_PW, 73_419, 1_344_792),
];

/// Gateway prefixes of the military post offices (USPS zones APO/FPO/DPO mail from
/// the gateway): AE via New York, AA via Miami, AP via San Francisco. 888 (the DC
/// "North Pole" unique ZIP) is zoned as Washington DC.
const GATEWAY_AE: u16 = 100;
const GATEWAY_AA: u16 = 331;
const GATEWAY_AP: u16 = 941;
const GATEWAY_888: u16 = 200;

/// One end of a US domestic shipment, resolved to a point of the distance table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UsEnd {
    /// Index into the distance table.
    pub point: u16,
    /// For the far territories and military post offices: their code (GU, AS, MP,
    /// FM, MH, PW, VI, AA, AE, AP); these take zone 9 under territory rules.
    pub far: Option<[u8; 2]>,
}

impl UsEnd {
    fn military(&self) -> bool {
        matches!(self.far, Some([b'A', b'A' | b'E' | b'P']))
    }
}

/// Which end of the shipment an address is, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The sender.
    Sender,
    /// The receiver.
    Receiver,
}

impl End {
    /// `sender` or `receiver`.
    pub fn as_str(self) -> &'static str {
        match self {
            End::Sender => "sender",
            End::Receiver => "receiver",
        }
    }
}

/// True for the countries that use US ZIP codes and the US domestic network.
#[inline(always)]
pub(crate) fn is_us_domain(country: &str) -> bool {
    // as one 16-bit number: a few integer comparisons instead of nine string ones
    const fn code(c: &[u8; 2]) -> u16 {
        u16::from_le_bytes(*c)
    }
    const DOMAIN: [u16; 9] =
        [code(b"US"), code(b"PR"), code(b"VI"), code(b"GU"), code(b"AS"), code(b"MP"), code(b"FM"), code(b"MH"), code(b"PW")];
    match country.as_bytes() {
        &[a, b] => DOMAIN.contains(&code(&[a, b])),
        _ => false,
    }
}

/// Resolves an address in the US domain to a point of the distance table.
#[inline(always)]
pub(crate) fn us_end(place: &Place<'_>, end: End) -> Result<UsEnd, RateError> {
    let Some(zip) = place.zip else {
        // Territories without a ZIP on the address: their representative point.
        let (point, far) = match place.country {
            "PR" => (9, None),
            "VI" => (8, Some(*b"VI")),
            "GU" => (969, Some(*b"GU")),
            "AS" => (PT_AS, Some(*b"AS")),
            "MP" => (PT_MP, Some(*b"MP")),
            "FM" => (PT_FM, Some(*b"FM")),
            "MH" => (PT_MH, Some(*b"MH")),
            "PW" => (PT_PW, Some(*b"PW")),
            _ => return Err(RateError::ZipRequired { end }),
        };
        return Ok(UsEnd { point, far });
    };
    let b = zip.as_bytes();
    if b.len() < 5 || !b[..5].iter().all(u8::is_ascii_digit) {
        return Err(RateError::InvalidZip { end, zip: zip.chars().take(16).collect() });
    }
    let zip5 = b[..5].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let zip3 = (zip5 / 100) as u16;
    let far5 = match zip5 {
        96799 => Some((PT_AS, *b"AS")),
        96950..=96959 => Some((PT_MP, *b"MP")),
        96939 | 96940 => Some((PT_PW, *b"PW")),
        96941..=96944 => Some((PT_FM, *b"FM")),
        96960..=96979 => Some((PT_MH, *b"MH")),
        _ => None,
    };
    if let Some((point, code)) = far5 {
        return Ok(UsEnd { point, far: Some(code) });
    }
    let (point, far) = match zip3 {
        90..=99 => (GATEWAY_AE, Some(*b"AE")),
        340 => (GATEWAY_AA, Some(*b"AA")),
        962..=966 => (GATEWAY_AP, Some(*b"AP")),
        888 => (GATEWAY_888, None),
        8 => (8, Some(*b"VI")),
        969 => (969, Some(*b"GU")),
        p => (p, None),
    };
    if table()[usize::from(point) * POINTS + usize::from(point)] == 0 {
        return Err(RateError::UnknownZipPrefix { end, prefix: zip3 });
    }
    Ok(UsEnd { point, far })
}

/// Zone between two US-domain ends. With `territory_rules`, a shipment to or from a
/// far territory or a military post office is zone 9, unless both ends are in the
/// same territory (Guam to Guam is zoned by distance); military to military is 9.
#[inline(always)]
pub(crate) fn us_zone(a: UsEnd, b: UsEnd, territory_rules: bool) -> Result<Zone, RateError> {
    if territory_rules && (a.far.is_some() || b.far.is_some()) {
        let same = a.far == b.far && !a.military();
        if !same {
            return Ok(Zone::digit(9));
        }
    }
    let z = table()[usize::from(a.point) * POINTS + usize::from(b.point)];
    if z == 0 {
        return Err(RateError::RouteNotPriced { reason: "one of the ZIP codes has no location to zone from".into() });
    }
    Ok(Zone::digit(z))
}

/// Builds the distance table now (about 40 ms once per process) instead of on the
/// first quote.
pub(crate) fn warm_up() {
    table();
}

fn table() -> &'static [u8] {
    static TABLE: OnceLock<Box<[u8]>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

// ---------------------------------------------------------------- fixed point

/// Fixed-point scale of the trigonometry: 10^18.
const S: i128 = 1_000_000_000_000_000_000;
/// pi x 10^18.
const PI: i128 = 3_141_592_653_589_793_238;
/// Earth radius in tenths of a mile (3958.8 mi, as the data README).
const R_TENTHS: i128 = 39_588;
/// Zone band upper limits in miles: <=50 zone 1, ..., <=1800 zone 7, else 8.
const BANDS: [i128; 7] = [50, 150, 300, 600, 1000, 1400, 1800];

/// sin(x) for |x| <= pi, x and result scaled by S (Taylor series; terms stay below
/// 6e37, inside i128).
fn sin_fx(x: i128) -> i128 {
    let x2 = x * x / S;
    let (mut term, mut sum, mut k) = (x, x, 1i128);
    while term != 0 {
        term = -term * x2 / S / ((2 * k) * (2 * k + 1));
        sum += term;
        k += 1;
    }
    sum
}

/// cos(x) for |x| <= pi, scaled by S.
fn cos_fx(x: i128) -> i128 {
    let x2 = x * x / S;
    let (mut term, mut sum, mut k) = (S, S, 1i128);
    while term != 0 {
        term = -term * x2 / S / ((2 * k - 1) * (2 * k));
        sum += term;
        k += 1;
    }
    sum
}

/// Degrees x 10^4 to radians x S.
fn rad(deg4: i64) -> i128 {
    i128::from(deg4) * PI / (180 * 10_000)
}

/// Unit vector of a point, components scaled by 10^9.
fn unit(lat4: i64, lon4: i64) -> [i64; 3] {
    let (la, lo) = (rad(lat4), rad(lon4));
    let (cla, sla, clo, slo) = (cos_fx(la), sin_fx(la), cos_fx(lo), sin_fx(lo));
    let k = 1_000_000_000i128;
    [(cla * clo / S / k) as i64, (cla * slo / S / k) as i64, (sla / k) as i64]
}

/// Parses "-73.0419" into degrees x 10^4.
fn parse_deg4(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || frac.len() > 4 {
        return None;
    }
    let mut v: i64 = int.parse().ok()?;
    let mut f: i64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    for _ in frac.len()..4 {
        f *= 10;
    }
    v = v * 10_000 + f;
    Some(if neg { -v } else { v })
}

/// Builds the POINTS x POINTS zone table. Integer arithmetic only: great-circle
/// distance bands are compared as squared chord lengths of unit vectors against
/// the chords of the band limits, which orders pairs exactly as the haversine
/// distance does.
fn build_table() -> Box<[u8]> {
    let mut pts: Vec<Option<[i64; 3]>> = vec![None; POINTS];
    for line in crate::refdata::us_zip3_csv().lines().skip(1) {
        let mut f = line.split(',');
        let (Some(z), Some(_), Some(lat), Some(lon)) = (f.next(), f.next(), f.next(), f.next()) else {
            continue;
        };
        let (Ok(z), Some(lat), Some(lon)) = (z.parse::<usize>(), parse_deg4(lat), parse_deg4(lon)) else {
            continue; // military and 888: no coordinates
        };
        if let Some(slot) = pts.get_mut(z) {
            *slot = Some(unit(lat, lon));
        }
    }
    for (p, lat, lon) in PACIFIC {
        pts[usize::from(p)] = Some(unit(lat, lon));
    }
    // chord(d) / R = 2 sin(d / 2R); squared, scale 10^18.
    let limits: Vec<i128> = BANDS
        .iter()
        .map(|miles| {
            let half = miles * 10 * S / (2 * R_TENTHS);
            let c = 2 * sin_fx(half) / 1_000_000_000;
            c * c
        })
        .collect();
    let mut t = vec![0u8; POINTS * POINTS].into_boxed_slice();
    for i in 0..POINTS {
        let Some(a) = pts[i] else { continue };
        for j in i..POINTS {
            let Some(b) = pts[j] else { continue };
            let d2: i128 = (0..3)
                .map(|k| {
                    let d = i128::from(a[k] - b[k]);
                    d * d
                })
                .sum();
            let zone = 1 + limits.iter().filter(|&&l| d2 > l).count() as u8;
            t[i * POINTS + j] = zone;
            t[j * POINTS + i] = zone;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn z(a: u16, b: u16) -> u8 {
        table()[usize::from(a) * POINTS + usize::from(b)]
    }

    #[test]
    fn trig_is_accurate() {
        // sin(pi/6) = 0.5, cos(pi/3) = 0.5
        assert!((sin_fx(PI / 6) - S / 2).abs() < 1000);
        assert!((cos_fx(PI / 3) - S / 2).abs() < 1000);
        assert!((cos_fx(PI) + S).abs() < 1000);
    }

    #[test]
    fn readme_sanity_pairs() {
        assert_eq!(z(100, 900), 8);
        assert_eq!(z(100, 191), 2);
        assert_eq!(z(606, 463), 1);
        assert_eq!(z(981, 331), 8);
        assert_eq!(z(967, 100), 8);
        assert_eq!(z(21, 100), 3);
        assert_eq!(z(303, 606), 4);
        assert_eq!(z(750, 770), 3);
        assert_eq!(z(941, 900), 4);
        assert_eq!(z(100, 9), 7);
        assert_eq!(z(100, 995), 8);
        assert_eq!(z(968, 969), 8);
        assert_eq!(z(100, 192), 2);
        assert_eq!(z(100, 100), 1);
        // Pacific: Guam-Saipan ~140 mi, Guam-Palau ~800, Guam-Pohnpei ~1000
        assert_eq!(z(969, PT_MP), 2);
        assert_eq!(z(969, PT_PW), 5);
        assert!(z(969, PT_FM) >= 5);
        assert_eq!(z(100, PT_AS), 8);
        // military and unused prefixes have no coordinates
        assert_eq!(z(96, 100), 0);
        assert_eq!(z(0, 100), 0);
    }
}
