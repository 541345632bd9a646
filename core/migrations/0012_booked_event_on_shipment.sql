-- Schema 12: a booking's first tracking event is read from its shipment.
--
-- `Info Received` at the sender, one per piece, at the moment of booking: everything in
-- it is the shipment's (its pieces' tracking numbers, its carrier, the sender's place),
-- except the time and place, which these columns keep. A booking wrote it as rows of
-- `tracking_events`, one more B-tree a booking changed (a page in the WAL, and its copy
-- at the checkpoint). Shipments booked before keep their stored event, and these
-- columns are NULL for them.
ALTER TABLE shipments ADD COLUMN booked_event_time TEXT;      -- YYYY-MM-DD HH:MM:SS
ALTER TABLE shipments ADD COLUMN booked_event_area TEXT;      -- the sender's city, and state if any
ALTER TABLE shipments ADD COLUMN booked_event_country TEXT;
