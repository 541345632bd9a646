-- Schema 8: arrival dates in the rate data (docs/rate-cards.md, kinds transit and
-- calendars), stored as the canonical text of their CSV columns like the other rate
-- tables. A database upgraded here gets the default rows of its carriers on its next
-- open (rating::seed_arrivals_if_missing): data, not schema.
CREATE TABLE rate_transit (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    zone TEXT NOT NULL,
    days TEXT NOT NULL,
    guaranteed TEXT NOT NULL,
    UNIQUE (carrier, service, zone)
);
CREATE TABLE rate_calendar (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (carrier, service, key, value)
);
