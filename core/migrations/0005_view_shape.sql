-- Schema 5: each shipment records the shape of its stored view (booking::view_shape),
-- so that a search sends views of today's shape as stored. Views stored before have none
-- and are read and written again.
ALTER TABLE shipments ADD COLUMN view_shape INTEGER;
