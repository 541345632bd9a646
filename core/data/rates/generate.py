#!/usr/bin/env python3
"""Generate the default rate data of consign (core/data/rates/*.csv).

Run from anywhere: `python3 core/data/rates/generate.py`. The output is
deterministic (no clock, no randomness) and is what `core/src/rating` embeds with
`include_str!`. The CSV format is described in docs/rate-cards.md; rows are written
in the order `export_csv` produces, so export(seed) is byte-identical to these files.

Prices are illustrative list prices shaped like public retail counter prices of the
carrier kinds (2025): a 2 lb ground parcel across the US costs about $18, an
overnight envelope about $90, a 30 kg international express parcel several hundred
dollars. Money uses exact decimal arithmetic (no floats) and is rounded half away
from zero to the cent.
"""
import csv
import json
import os
from decimal import Decimal as D, ROUND_HALF_UP

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
CENT = D("0.01")


def money(x):
    return str(D(x).quantize(CENT, rounding=ROUND_HALF_UP))


def write(name, header, rows):
    with open(os.path.join(HERE, name), "w", newline="") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(str(c) for c in r) + "\n")


catalog = json.load(open(os.path.join(DATA, "catalog.json")))
carriers = {c["code"]: c for c in catalog["carriers"]}
countries = list(csv.DictReader(open(os.path.join(DATA, "countries.csv"))))

# ---------------------------------------------------------------- carriers
CARRIERS = [
    # carrier, currency, weight_unit, weight_step, dim_unit, dim_divisor, dim_min_volume
    ("ecommerce", "USD", "lb", "1", "in", "166", "1728"),
    ("expressground", "USD", "lb", "1", "in", "139", "0"),
    ("intlexpress", "USD", "kg", "0.5", "cm", "5000", "0"),
    ("parcel", "USD", "lb", "1", "in", "139", "0"),
    ("postal", "USD", "lb", "1", "in", "166", "1728"),
]
write("carriers.csv", ["carrier", "currency", "weight_unit", "weight_step", "dim_unit",
                       "dim_divisor", "dim_min_volume"], CARRIERS)

write("exchange-rates.csv", ["currency", "per_usd"],
      [("CAD", "1.3900"), ("EUR", "0.8700"), ("GBP", "0.7600"), ("USD", "1")])

# ---------------------------------------------------------------- zone charts
US_DOMAIN = ["US", "PR", "VI", "GU", "AS", "MP", "FM", "MH", "PW"]
WEST_EUROPE = set("AD AT BE CH DE DK ES FI FO FR GB GG GI IE IM IS IT JE LI LU MC MT NL NO PT SE SM VA AX SJ".split())

# group index: 0 CA, 1 MX, 2 Caribbean and Central America, 3 South America,
# 4 Western Europe, 5 other Europe, 6 East and South-East Asia, 7 Oceania,
# 8 Middle East, South and Central Asia, 9 Africa
def group(c):
    a, reg, sub, inter = c["alpha2"], c["region"], c["subregion"], c["intermediate_region"]
    if a == "CA":
        return 0
    if a == "MX":
        return 1
    if reg == "Americas":
        return 3 if inter == "South America" else 2
    if reg == "Europe":
        return 4 if a in WEST_EUROPE else 5
    if reg == "Asia":
        return 6 if sub in ("Eastern Asia", "South-eastern Asia") else 8
    if reg == "Oceania":
        return 7
    if reg == "Africa":
        return 9
    return None  # AQ: not served


LABELS = {
    "letters": ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"],
    "numbers": ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"],
    "names": ["CA", "MX", "CARIB", "SAMER", "EUR1", "EUR2", "ASIA", "OCEANIA", "MIDEAST", "AFRICA"],
}

zone_rows = []


def world_chart(chart, basis, labels, exclude=("US",)):
    for c in countries:
        g = group(c)
        if g is None or c["alpha2"] in exclude:
            continue
        zone_rows.append((chart, basis, c["alpha2"], LABELS[labels][g]))


def domestic_chart(chart, rule, extra=()):
    for a in sorted(list(US_DOMAIN) + [e[0] for e in extra]):
        hit = [e for e in extra if e[0] == a]
        zone_rows.append((chart, "receiver", a, hit[0][1] if hit else rule))


domestic_chart("ecommerce_domestic", "distance-t9")
world_chart("ecommerce_world", "receiver", "numbers")
domestic_chart("expressground_domestic", "distance", [("CA", "CA")])
world_chart("expressground_world", "receiver", "names")
world_chart("intlexpress_import", "sender", "letters")
world_chart("intlexpress_world", "receiver", "letters")
zone_rows.append(("parcel_canada_mexico", "receiver", "CA", "CA"))
zone_rows.append(("parcel_canada_mexico", "receiver", "MX", "MX"))
domestic_chart("parcel_domestic", "distance")
world_chart("parcel_import", "sender", "names")
world_chart("parcel_world", "receiver", "names")
domestic_chart("postal_domestic", "distance-t9")
world_chart("postal_world", "receiver", "numbers", exclude=tuple(US_DOMAIN))
zone_rows.sort(key=lambda r: r[0])  # stable: keeps country order within a chart
write("zones.csv", ["chart", "basis", "country", "zone"], zone_rows)

# ---------------------------------------------------------------- prices
DOM8 = [str(z) for z in range(1, 9)]
DOM9 = [str(z) for z in range(1, 10)]


def lerp(a, b, i, n):
    return D(a) + (D(b) - D(a)) * D(i) / D(n - 1)


def dom_curve(first, per):
    """first: (zone-low, zone-high) price at the first break; per: (low, high) per unit."""
    def f(zones):
        out = {}
        for i, z in enumerate(zones):
            n = min(len(zones), 8)
            k = min(i, 7)
            out[z] = (lerp(first[0], first[1], k, n), lerp(per[0], per[1], k, n))
            if i == 8:  # zone 9: 15 % above zone 8
                out[z] = (out[zones[7]][0] * D("1.15"), out[zones[7]][1] * D("1.15"))
        return out
    return f


def group_curve(table):
    """table: list of 10 (first, per) in group order."""
    def f(labels):
        return {LABELS[labels][g]: (D(a), D(b)) for g, (a, b) in enumerate(table)}
    return f


def breaks_lb(maxw):
    maxw = D(maxw).to_integral_value(rounding="ROUND_CEILING")  # breaks are whole steps
    bs = [D(w) for w in range(1, 21)] + [D(w) for w in (25, 30, 40, 50, 60, 70)]
    if maxw > 70:
        return bs  # beyond 70: the `each` row prices every further unit
    return [b for b in bs if b < maxw] + [maxw]


def breaks_kg(maxw):
    maxw = D(maxw)
    bs = [D(h) / 2 for h in range(1, 21)] + [D(w) for w in range(11, 31)]
    return [b for b in bs if b < maxw] + [maxw] if maxw <= 30 else bs


rate_rows = []
pt_max_now = ["0"]


def card(carrier, service, pt, chart, curve_zones, breaks, step, first_break,
         each=None, minimum=False, factor=D(1)):
    """price(w) = first + per * (w - first_break) / step, times factor."""
    maxw = D(pt_max_now[0])
    if breaks[-1] < maxw:
        each = 1  # heavier pieces are allowed: price every further unit
    for z, (first, per) in curve_zones.items():
        for b in breaks:
            p = (first + per * (b - D(first_break)) / D(step)) * factor
            rate_rows.append((carrier, service, pt, chart, z, str(b), money(p)))
        if each is not None:
            # per unit beyond the last break: per step price / step, times `each`
            rate_rows.append((carrier, service, pt, chart, z, "each",
                              money(per / D(step) * D(each) * factor)))
        if minimum:
            rate_rows.append((carrier, service, pt, chart, z, "min", money(first * factor)))


def flat(carrier, service, pt, chart, maxw, price):
    rate_rows.append((carrier, service, pt, chart, "*", maxw, price))


pt_max = {(c["code"], p["code"]): p["maxWeight"] for c in catalog["carriers"]
          for p in c["packageTypes"]}

# per service: (chart, zones-or-labels, curve, package factor)
PARCEL_DOM = {
    "parcel_ground": dom_curve(("10.40", "14.90"), ("0.45", "1.80")),
    "parcel_3_day_select": dom_curve(("17.20", "31.40"), ("1.10", "3.10")),
    "parcel_2nd_day_air": dom_curve(("22.40", "46.50"), ("1.60", "4.30")),
    "parcel_next_day_air_saver": dom_curve(("41.00", "82.00"), ("2.90", "6.40")),
    "parcel_next_day_air": dom_curve(("45.50", "86.00"), ("3.20", "7.10")),
}
EG_DOM = {
    "expressground_ground": dom_curve(("10.50", "14.70"), ("0.47", "1.80")),
    "expressground_home_delivery": dom_curve(("11.20", "16.60"), ("0.50", "2.05")),
    "expressground_express_saver": dom_curve(("17.00", "31.00"), ("1.05", "3.05")),
    "expressground_2day": dom_curve(("22.00", "46.00"), ("1.55", "4.25")),
    "expressground_standard_overnight": dom_curve(("40.50", "84.00"), ("2.85", "6.50")),
    "expressground_priority_overnight": dom_curve(("46.00", "88.00"), ("3.25", "7.20")),
    "expressground_first_overnight": dom_curve(("78.00", "128.00"), ("3.60", "7.90")),
}
# group order: CA MX CARIB SAMER EUR1 EUR2 ASIA OCEANIA MIDEAST AFRICA  (first lb, per lb)
WORLD_LB_EXPRESS = [("62", "4.60"), ("66", "5.10"), ("78", "6.90"), ("92", "8.40"), ("88", "7.60"),
                    ("96", "8.80"), ("98", "9.20"), ("104", "9.90"), ("108", "10.60"), ("118", "11.80")]
WORLD_KG_EXPRESS = [("58", "7.40"), ("63", "8.10"), ("74", "10.60"), ("86", "12.60"), ("79", "11.20"),
                    ("88", "12.80"), ("92", "13.50"), ("98", "14.40"), ("102", "15.40"), ("112", "17.20")]

SERVICE_FACTOR = {
    "parcel_worldwide_saver": D("0.94"), "parcel_worldwide_express": D("1"),
    "parcel_worldwide_express_import": D("1.10"),
    "intlexpress_express_worldwide": D("1"), "intlexpress_express_1200": D("1.15"),
    "intlexpress_economy_select": D("0.55"), "intlexpress_express_worldwide_import": D("1.10"),
    "expressground_international_priority": D("1"), "expressground_international_economy": D("0.82"),
}
ENVELOPE_FACTOR = D("0.92")  # letters/envelopes price a little under the 1-unit parcel

POSTAL_DOM = {
    "postal_ground_advantage": dom_curve(("7.20", "10.60"), ("0.60", "2.30")),
    "postal_priority_mail": dom_curve(("9.85", "15.50"), ("0.80", "3.20")),
    "postal_priority_mail_express": dom_curve(("31.00", "45.90"), ("1.60", "6.10")),
    "postal_media_mail": dom_curve(("4.13", "4.13"), ("0.76", "0.76")),
}
POSTAL_FLAT = {
    "postal_priority_mail": {"postal_flat_rate_envelope": "10.40", "postal_legal_flat_rate_envelope": "10.70",
                             "postal_padded_flat_rate_envelope": "11.15", "postal_small_flat_rate_box": "11.00",
                             "postal_medium_flat_rate_box": "19.30", "postal_large_flat_rate_box": "25.60"},
    "postal_priority_mail_express": {"postal_flat_rate_envelope": "31.40", "postal_legal_flat_rate_envelope": "31.60",
                                     "postal_padded_flat_rate_envelope": "32.10", "postal_small_flat_rate_box": "44.90",
                                     "postal_medium_flat_rate_box": "59.90", "postal_large_flat_rate_box": "74.90"},
}
# postal international price groups 1..10 (first lb, per lb)
POSTAL_INTL = {
    "postal_first_class_international": [("16.90", "4.80"), ("19.80", "5.60"), ("22.40", "6.30"), ("24.10", "6.90"),
                                         ("26.30", "7.20"), ("27.10", "7.60"), ("27.90", "7.90"), ("29.20", "8.40"),
                                         ("29.60", "8.50"), ("31.20", "9.10")],
    "postal_priority_mail_international": [("49.40", "3.10"), ("55.80", "3.90"), ("62.50", "4.60"), ("68.00", "5.30"),
                                           ("66.20", "5.00"), ("69.90", "5.60"), ("71.30", "5.90"), ("74.60", "6.40"),
                                           ("75.20", "6.50"), ("79.80", "7.20")],
    "postal_priority_mail_express_international": [("61.25", "3.90"), ("70.40", "4.80"), ("78.10", "5.60"),
                                                   ("84.60", "6.30"), ("82.30", "6.00"), ("86.90", "6.70"),
                                                   ("88.70", "7.00"), ("92.80", "7.60"), ("93.60", "7.70"),
                                                   ("99.20", "8.40")],
}
# international flat rate: (group 1 = Canada, other groups)
POSTAL_INTL_FLAT = {
    "postal_priority_mail_international": {"postal_flat_rate_envelope": ("38.20", "48.95"),
                                           "postal_small_flat_rate_box": ("40.15", "51.85"),
                                           "postal_medium_flat_rate_box": ("80.40", "117.80"),
                                           "postal_large_flat_rate_box": ("104.75", "153.55")},
    "postal_priority_mail_express_international": {"postal_flat_rate_envelope": ("56.75", "71.60")},
}
ECOM_DOM = {
    "ecommerce_parcel_ground": dom_curve(("5.20", "8.60"), ("0.32", "1.25")),
    "ecommerce_parcel_expedited": dom_curve(("6.40", "10.40"), ("0.40", "1.50")),
}
ECOM_INTL = [("13.80", "4.10"), ("16.20", "4.90"), ("19.40", "6.10"), ("21.80", "6.90"), ("17.90", "5.30"),
             ("20.60", "6.20"), ("19.90", "6.00"), ("22.40", "6.80"), ("23.80", "7.30"), ("25.60", "8.10")]


def offered(service):
    for s in catalog["services"]:
        if s["code"] == service:
            return s
    raise KeyError(service)


for s in catalog["services"]:
    carrier, svc = s["carrier"], s["code"]
    for p in s["packageTypes"]:
        pt = p["packageType"]
        maxw = p.get("maxWeight") or pt_max[(carrier, pt)]
        pt_max_now[0] = maxw
        custom = pt.endswith("_custom")
        env = pt.endswith(("_letter", "_envelope"))
        fac = ENVELOPE_FACTOR if env else D(1)
        if carrier in ("parcel", "expressground") and svc in {**PARCEL_DOM, **EG_DOM}:
            curve = {**PARCEL_DOM, **EG_DOM}[svc](DOM8)
            if svc == "expressground_ground":
                curve["CA"] = (D("24.50"), D("1.45"))
            chart = "parcel_domestic" if carrier == "parcel" else "expressground_domestic"
            card(carrier, svc, pt, chart, curve, breaks_lb(maxw), 1, 1,
                 each=1 if custom else None, minimum=custom, factor=fac)
        elif svc == "parcel_standard":
            curve = {"CA": (D("24.10"), D("1.40")), "MX": (D("30.60"), D("2.05"))}
            card(carrier, svc, pt, "parcel_canada_mexico", curve, breaks_lb(maxw), 1, 1, each=1, minimum=True)
        elif carrier in ("parcel", "expressground"):  # international by lb
            chart = "parcel_import" if s["inbound"] else f"{carrier}_world"
            card(carrier, svc, pt, chart, group_curve(WORLD_LB_EXPRESS)("names"), breaks_lb(maxw), 1, 1,
                 each=1 if custom else None, minimum=custom, factor=fac * SERVICE_FACTOR[svc])
        elif carrier == "intlexpress":
            chart = "intlexpress_import" if s["inbound"] else "intlexpress_world"
            card(carrier, svc, pt, chart, group_curve(WORLD_KG_EXPRESS)("letters"), breaks_kg(maxw), "0.5", "0.5",
                 each=1 if custom else None, minimum=custom, factor=fac * SERVICE_FACTOR[svc])
        elif carrier == "postal" and svc in POSTAL_FLAT and not custom:
            flat(carrier, svc, pt, "postal_domestic", maxw, POSTAL_FLAT[svc][pt])
        elif carrier == "postal" and svc in POSTAL_DOM:
            card(carrier, svc, pt, "postal_domestic", POSTAL_DOM[svc](DOM9), breaks_lb(maxw), 1, 1, minimum=True)
        elif carrier == "postal" and svc in POSTAL_INTL_FLAT and not custom:
            ca, other = POSTAL_INTL_FLAT[svc][pt]
            for i, z in enumerate(LABELS["numbers"]):
                # per-group flat price: a "zone-dependent flat rate", one break at the max weight
                rate_rows.append((carrier, svc, pt, "postal_world", z, maxw, ca if i == 0 else other))
        elif carrier == "postal":
            card(carrier, svc, pt, "postal_world", group_curve(POSTAL_INTL[svc])("numbers"), breaks_lb(maxw), 1, 1,
                 minimum=True)
        elif carrier == "ecommerce" and svc in ECOM_DOM:
            card(carrier, svc, pt, "ecommerce_domestic", ECOM_DOM[svc](DOM9), breaks_lb(maxw), 1, 1, minimum=True)
        elif carrier == "ecommerce":
            card(carrier, svc, pt, "ecommerce_world", group_curve(ECOM_INTL)("numbers"), breaks_lb(maxw), 1, 1,
                 minimum=True)
        else:
            raise SystemExit(f"no rate rule for {svc}/{pt}")

rate_rows.sort(key=lambda r: (r[0], r[1], r[2]))  # stable: keeps zone/weight order within a card
write("rates.csv", ["carrier", "service", "package_type", "chart", "zone", "weight", "price"], rate_rows)

# ---------------------------------------------------------------- surcharges
zip3 = list(csv.DictReader(open(os.path.join(DATA, "us-zip3.csv"))))
sur = []


def add(carrier, service, kind, key, amount):
    sur.append((carrier, service, kind, key, amount))


def area_list(carrier, rural, remote_ak, hawaii):
    for z in zip3:
        st = z["state"]
        if st == "AK":
            add(carrier, "*", "delivery_area", z["zip3"], remote_ak)
        elif st == "HI":
            add(carrier, "*", "delivery_area", z["zip3"], hawaii)
        elif st in ("MT", "WY", "ND", "SD", "VT", "ME", "WV") and z["basis"] == "zcta":
            add(carrier, "*", "delivery_area", z["zip3"], rural)
    add(carrier, "*", "delivery_area", "06390", "15.00")  # Fishers Island NY: a single 5-digit ZIP


# ecommerce
add("ecommerce", "*", "fuel", "", "9.50")
add("ecommerce", "*", "insurance", "", "1.00")
add("ecommerce", "*", "insurance_min", "", "2.00")
add("ecommerce", "*", "handling_length", "22", "4.00")
add("ecommerce", "ecommerce_parcel_expedited", "dangerous_goods", "", "12.00")
add("ecommerce", "ecommerce_parcel_ground", "dangerous_goods", "", "12.00")
# expressground
add("expressground", "*", "fuel", "", "20.75")
add("expressground", "expressground_ground", "fuel", "", "18.25")
add("expressground", "expressground_home_delivery", "fuel", "", "18.25")
add("expressground", "*", "residential", "", "5.95")
area_list("expressground", "4.40", "44.50", "14.25")
add("expressground", "*", "signature", "expressground_indirect_signature", "7.00")
add("expressground", "*", "signature", "expressground_direct_signature", "7.95")
add("expressground", "*", "signature", "expressground_adult_signature", "9.40")
add("expressground", "*", "insurance", "", "1.30")
add("expressground", "*", "insurance_min", "", "4.00")
add("expressground", "expressground_2day", "saturday", "", "16.00")
add("expressground", "expressground_priority_overnight", "saturday", "", "16.00")
add("expressground", "*", "handling_weight", "50", "30.50")
add("expressground", "*", "handling_length", "48", "25.50")
add("expressground", "*", "oversize_length", "96", "230.00")
add("expressground", "*", "oversize_girth", "130", "230.00")
# intlexpress
add("intlexpress", "*", "fuel", "", "24.50")
add("intlexpress", "*", "signature", "intlexpress_direct_signature", "9.00")
add("intlexpress", "*", "insurance", "", "1.50")
add("intlexpress", "*", "insurance_min", "", "25.00")
add("intlexpress", "intlexpress_express_worldwide", "saturday", "", "60.00")
add("intlexpress", "*", "handling_weight", "50", "40.00")
add("intlexpress", "*", "oversize_length", "120", "100.00")
# parcel
add("parcel", "*", "fuel", "", "21.00")
add("parcel", "parcel_ground", "fuel", "", "18.50")
add("parcel", "parcel_standard", "fuel", "", "18.50")
add("parcel", "*", "residential", "", "5.95")
area_list("parcel", "4.45", "45.00", "14.50")
add("parcel", "*", "signature", "parcel_signature", "6.90")
add("parcel", "*", "signature", "parcel_adult_signature", "8.30")
add("parcel", "*", "insurance", "", "1.25")
add("parcel", "*", "insurance_min", "", "4.15")
add("parcel", "parcel_2nd_day_air", "saturday", "", "16.00")
add("parcel", "parcel_next_day_air", "saturday", "", "16.00")
add("parcel", "*", "handling_weight", "50", "31.45")
add("parcel", "*", "handling_length", "48", "26.00")
add("parcel", "*", "oversize_length", "96", "235.00")
add("parcel", "*", "oversize_girth", "130", "235.00")
# postal (no fuel surcharge)
add("postal", "*", "signature", "postal_signature_confirmation", "4.40")
add("postal", "*", "signature", "postal_adult_signature", "10.20")
add("postal", "*", "insurance", "", "1.70")
add("postal", "*", "insurance_min", "", "2.85")
add("postal", "postal_priority_mail_express", "am", "", "5.00")
add("postal", "*", "handling_length", "22", "4.50")
add("postal", "*", "handling_length", "30", "15.00")
add("postal", "*", "oversize_girth", "108", "80.00")

sur.sort(key=lambda r: r[0])
write("surcharges.csv", ["carrier", "service", "kind", "key", "amount"], sur)

# ---------------------------------------------------------------- transit times
# Business days in transit, shaped like the carriers' published service guides:
# ground 1-5 days by distance zone, two-day 2, overnight 1, international express
# 2-5 and economy 4-8 by country group. Guaranteed: the express services whose date
# the carrier kinds guarantee (money back), not ground, postal retail or economy.
transit = []


def by_zone(carrier, service, days, guaranteed, zones=range(1, 9)):
    """One row per distance zone; `days` lists zones 1-8 (and 9 when given)."""
    for z, d in zip(list(zones) + ([9] if len(days) > 8 else []), days):
        transit.append((carrier, service, str(z), d, guaranteed))


def everywhere(carrier, service, days, guaranteed):
    transit.append((carrier, service, "*", days, guaranteed))


def by_group(carrier, service, labels, days, guaranteed):
    """One row per country group (CA, MX, Caribbean, South America, Western Europe,
    other Europe, Asia, Oceania, Middle East and South Asia, Africa)."""
    for label, d in zip(LABELS[labels], days):
        transit.append((carrier, service, label, d, guaranteed))


GROUND = [1, 1, 2, 3, 4, 4, 5, 5]
EXPRESS_INTL = [2, 2, 3, 4, 2, 3, 3, 4, 4, 5]
ECONOMY_INTL = [4, 4, 5, 6, 5, 6, 6, 7, 7, 8]
by_zone("ecommerce", "ecommerce_parcel_expedited", [2, 2, 2, 3, 3, 3, 4, 4, 6], "false")
by_zone("ecommerce", "ecommerce_parcel_ground", [2, 3, 3, 4, 5, 6, 7, 7, 8], "false")
by_group("ecommerce", "ecommerce_parcel_international_direct", "numbers", [4, 5, 6, 7, 6, 7, 7, 8, 8, 8], "false")
for service in ("expressground_ground", "expressground_home_delivery"):
    by_zone("expressground", service, GROUND, "false")
    transit.append(("expressground", service, "CA", 4, "false"))
everywhere("expressground", "expressground_express_saver", 3, "true")
everywhere("expressground", "expressground_2day", 2, "true")
for service in ("expressground_standard_overnight", "expressground_priority_overnight", "expressground_first_overnight"):
    everywhere("expressground", service, 1, "true")
by_group("expressground", "expressground_international_priority", "names", EXPRESS_INTL, "true")
by_group("expressground", "expressground_international_economy", "names", ECONOMY_INTL, "false")
for service in ("intlexpress_express_worldwide", "intlexpress_express_1200", "intlexpress_express_worldwide_import"):
    by_group("intlexpress", service, "letters", EXPRESS_INTL, "true")
by_group("intlexpress", "intlexpress_economy_select", "letters", ECONOMY_INTL, "false")
by_zone("parcel", "parcel_ground", GROUND, "false")
everywhere("parcel", "parcel_3_day_select", 3, "true")
everywhere("parcel", "parcel_2nd_day_air", 2, "true")
everywhere("parcel", "parcel_next_day_air_saver", 1, "true")
everywhere("parcel", "parcel_next_day_air", 1, "true")
transit.append(("parcel", "parcel_standard", "CA", 4, "false"))
transit.append(("parcel", "parcel_standard", "MX", 5, "false"))
by_group("parcel", "parcel_worldwide_saver", "names", [2, 2, 3, 4, 3, 3, 3, 4, 4, 5], "true")
by_group("parcel", "parcel_worldwide_express", "names", EXPRESS_INTL, "true")
by_group("parcel", "parcel_worldwide_express_import", "names", EXPRESS_INTL, "true")
by_zone("postal", "postal_ground_advantage", [2, 2, 3, 3, 4, 4, 5, 5, 7], "false")
by_zone("postal", "postal_priority_mail", [1, 1, 2, 2, 2, 3, 3, 3, 4], "false")
by_zone("postal", "postal_priority_mail_express", [1, 1, 1, 1, 1, 1, 1, 1, 2], "true")
by_zone("postal", "postal_media_mail", [2, 3, 4, 5, 6, 7, 8, 8, 10], "false")
by_group("postal", "postal_first_class_international", "numbers", [7, 8, 10, 12, 8, 10, 10, 12, 12, 15], "false")
by_group("postal", "postal_priority_mail_international", "numbers", [6, 6, 8, 10, 6, 8, 8, 10, 10, 10], "false")
by_group("postal", "postal_priority_mail_express_international", "numbers", [3, 3, 4, 5, 3, 4, 4, 5, 5, 5], "false")
served = {(s["carrier"], s["code"]) for s in catalog["services"]}
assert {(c, s) for c, s, *_ in transit} == served, "every service of the catalog has transit rows"
transit.sort(key=lambda r: (r[0], r[1]))  # stable: keeps the zone order within a service
write("transit.csv", ["carrier", "service", "zone", "days", "guaranteed"], transit)

# ---------------------------------------------------------------- calendars
# The private carriers pick up and deliver Monday to Friday and close on the six
# holidays they all observe; the postal carrier works Monday to Saturday and closes on
# every federal holiday; the e-commerce carrier hands its parcels to the postal
# carrier for the final mile, so it delivers on Saturdays and its holidays.
SIX = "new_years_day memorial_day independence_day labor_day thanksgiving christmas"
FEDERAL = ("new_years_day mlk_day presidents_day memorial_day juneteenth independence_day labor_day "
           "columbus_day veterans_day thanksgiving christmas")
WEEK = "mon tue wed thu fri"
calendars = []
for carrier, pickup, delivery, holidays in [
    ("ecommerce", WEEK, WEEK + " sat", FEDERAL),
    ("expressground", WEEK, WEEK, SIX),
    ("intlexpress", WEEK, WEEK, SIX),
    ("parcel", WEEK, WEEK, SIX),
    ("postal", WEEK + " sat", WEEK + " sat", FEDERAL),
]:
    calendars += [(carrier, "*", "pickup_days", pickup), (carrier, "*", "delivery_days", delivery),
                  (carrier, "*", "holidays", holidays)]
# Home delivery (residential ground) delivers Tuesday to Saturday.
calendars.append(("expressground", "expressground_home_delivery", "delivery_days", "tue wed thu fri sat"))
calendars.sort(key=lambda r: r[0])  # stable: export order (carrier, then as written)
write("calendars.csv", ["carrier", "service", "key", "value"], calendars)
print(f"rates: {len(rate_rows)} rows, zones: {len(zone_rows)} rows, surcharges: {len(sur)} rows, "
      f"transit: {len(transit)} rows, calendars: {len(calendars)} rows")
