-- The injected "dropped index" regression: the index by which every
-- entries list fetches its entries' enclosures (WHERE entry_id = ANY($1)).
-- Without it PostgreSQL reads the whole enclosures table per list.
DROP INDEX enclosures_entry_id_idx;
