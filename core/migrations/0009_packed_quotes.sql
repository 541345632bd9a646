-- Schema 9: quotes stored packed.
--
-- The table is unchanged; what goes into its quotes column is not. New rows hold a
-- shipment's quotes as a BLOB in the packed form of core/src/packed.rs (no keys, codes
-- for what repeats): about a fifth of the bytes of their JSON text, which for a batch
-- over every service was most of what the batch wrote and checkpointed. Rows written
-- before stay JSON TEXT and are read as such until they expire. (A TEXT column takes
-- BLOBs as they are.) The version is raised so that an older build, which reads only
-- JSON, refuses the file instead of failing on its new rows.
SELECT 1;
