-- Receive time of the options metrics rows (docs/read-api.md "Options history"): `ingest_ts`, the moment a
-- row reached the store, beside its snapshot time `ts`, so `/v1/options/history?known_by=K` uses only the
-- snapshots received by K. Rows stored before the column existed have no receive time: the second statement
-- (a mutation, applied in the background) gives them their snapshot time, so they count as known from their
-- own moment (like rows older than the known-at ledger). The third adds the column to the Distributed table of
-- a cluster; on one node it is the same table, and IF NOT EXISTS makes it a no-op.

ALTER TABLE {{table:options_metrics}} {{on_cluster}} ADD COLUMN IF NOT EXISTS ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1));

ALTER TABLE {{table:options_metrics}} {{on_cluster}} UPDATE ingest_ts = ts WHERE 1;

ALTER TABLE options_metrics {{on_cluster}} ADD COLUMN IF NOT EXISTS ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1));
