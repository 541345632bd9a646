-- Schema 2: consign's files carry their own application id, the ASCII bytes "CSGN"
-- (store::APPLICATION_ID), so that consign tells its files from other SQLite files
-- and refuses those. The tables do not change.
PRAGMA application_id = 1129531214;
