-- Schema 8: tracking events keyed by shipment first.
--
-- A booking's first event went into two indexes: the duplicate check, which began with
-- the tracking number (random, so each booking wrote a page somewhere in the middle of
-- it), and the shipment's event list. An event's tracking number is always one of its
-- shipment's (the feed refuses others), so the duplicate check may begin with the book
-- number without changing what counts as a duplicate. Book numbers only grow, so new
-- events go to the end of that one index, and it also finds a shipment's events.
CREATE TABLE tracking_events_by_book (
    id INTEGER PRIMARY KEY,
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    tracking_number TEXT NOT NULL,
    carrier TEXT NOT NULL,
    event TEXT NOT NULL,
    event_status TEXT NOT NULL,
    event_time TEXT NOT NULL,                -- YYYY-MM-DD HH:MM:SS
    service_area TEXT NOT NULL,
    service_area_country TEXT NOT NULL,
    UNIQUE (book_number, tracking_number, event_status, event_time, event, service_area)
);
INSERT INTO tracking_events_by_book (id, book_number, tracking_number, carrier, event, event_status, event_time, service_area, service_area_country)
    SELECT id, book_number, tracking_number, carrier, event, event_status, event_time, service_area, service_area_country FROM tracking_events;
DROP TABLE tracking_events;
ALTER TABLE tracking_events_by_book RENAME TO tracking_events;
