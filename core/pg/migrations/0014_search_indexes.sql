-- Schema 14, the twin of core/migrations/0014_search_indexes.sql: three more indexes for
-- search (core/src/store/pg/search.rs). `shipments_newest` walks a customer's shipments
-- newest first and holds what a search reads of them, so that a keyword most of them
-- hold is answered from the index without sorting every match; `shipments_short_grams`
-- finds the keywords of one or two characters, which have no trigram, and
-- `shipments_digit_grams` those holding eight digits or more (numbers).
--
-- The trigram index loses its customer_id: with it, every search read the customer's
-- whole list of rows in the index (7 ms at a million shipments); without it, a rare
-- keyword's few rows are read, and the customer checked on each.
DROP INDEX shipments_search;
CREATE INDEX shipments_search ON shipments USING gin (search_body gin_trgm_ops);

CREATE INDEX shipments_newest ON shipments (customer_id, search_rowid) INCLUDE (book_number, search_body);

-- The distinct one- and two-character windows of each line of `body`.
CREATE FUNCTION consign_short_grams(body TEXT) RETURNS TEXT[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
        SELECT ARRAY(
            SELECT DISTINCT substr(line, i, n)
            FROM unnest(string_to_array(body, E'\n')) AS line,
                 generate_series(1, 2) AS n,
                 generate_series(1, char_length(line) - n + 1) AS i
        )
    $$;
CREATE INDEX shipments_short_grams ON shipments USING gin (consign_short_grams(search_body));

-- The distinct six-digit windows that start every third digit of each run of six digits
-- or more in `body`: trigrams of digits, a thousand in all, are in too many texts to find
-- a number by. Any three windows in a row of a number of eight digits or more hold one
-- of them (every window would cost a booking a fifth of its time).
CREATE FUNCTION consign_digit_grams(body TEXT) RETURNS TEXT[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
        SELECT ARRAY(
            SELECT DISTINCT substr(run[1], i, 6)
            FROM regexp_matches(body, '[0-9]{6,}', 'g') AS run,
                 generate_series(1, char_length(run[1]) - 5, 3) AS i
        )
    $$;
CREATE INDEX shipments_digit_grams ON shipments USING gin (consign_digit_grams(search_body));
