-- Schema 15, the twin of core/migrations/0015_inlined_grams.sql: the functions of the
-- one- and two-character and the six-digit search indexes become single expressions of
-- built-in functions, which PostgreSQL inlines. Each was a query of its own, planned
-- again at every INSERT of a shipment: planning and running them took twice the time of
-- updating the two indexes.
-- Each gives the same set of windows as before (as an array with repeats, which GIN
-- ignores), so the indexes stay valid as they are: nothing is rebuilt.

-- The one- and two-character windows of each line of `body` (some more than once, and
-- none that holds a line break): keywords that short have no trigram. Its characters,
-- and its pairs split at even and at odd offsets. One expression of built-in functions,
-- which PostgreSQL inlines into the index and into queries: a function with a query
-- of its own would be planned again at every INSERT.
CREATE OR REPLACE FUNCTION consign_short_grams(body TEXT) RETURNS TEXT[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
        SELECT array_remove(array_remove(
            string_to_array(body, NULL)
            || string_to_array(regexp_replace(body, '..', E'\\&\n', 'g'), E'\n')
            || string_to_array(regexp_replace(substr(body, 2), '..', E'\\&\n', 'g'), E'\n'),
            ''), E'\n')
    $$;

-- The six-digit windows that start every third digit of each run of six digits or more
-- in `body` (some more than once): trigrams of digits, a thousand in all, are in too many
-- texts to find a number by. Any three windows in a row of a number of eight digits or
-- more hold one of them (every window would cost a booking a fifth of its time). The
-- runs, one per line, cut into six digits from their start, and again from their fourth
-- digit; what is shorter is dropped. Inlined as `consign_short_grams` is.
CREATE OR REPLACE FUNCTION consign_digit_grams(body TEXT) RETURNS TEXT[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
        SELECT array_remove(
            string_to_array(regexp_replace(
                regexp_replace(body, '[^0-9]+', E'\n', 'g'),
                '([0-9]{6})|[0-9]{1,5}', E'\\1\n', 'g'), E'\n')
            || string_to_array(regexp_replace(
                regexp_replace(regexp_replace(body, '[^0-9]+', E'\n', 'g'), '(^|\n)[0-9]{1,3}', E'\\1', 'g'),
                '([0-9]{6})|[0-9]{1,5}', E'\\1\n', 'g'), E'\n'),
            '')
    $$;
