-- Signal events (issue 14, docs/signals.md): one row per event published on the signal bus, fired by the
-- signal engine (source 'engine') or forwarded from an inbound alert (source 'alert:<name>', key_id set:
-- it belongs to that API key). `id` is the event's stable id; inserts carry a dedup token made of the ids,
-- so a retried batch is stored once. `confidence` and `action` are the buckets the engine tracks after the
-- event (the engine's state is rebuilt from them at start). Listing reads newest first by (ts, id).

CREATE TABLE IF NOT EXISTS {{table:signal_events}} {{on_cluster}} (
  id String,
  event LowCardinality(String),
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  symbol LowCardinality(String),
  direction LowCardinality(String),
  confidence LowCardinality(String),
  composite Float64,
  action LowCardinality(String),
  source LowCardinality(String),
  key_id String DEFAULT '',
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toYYYYMM(ts)
ORDER BY (ts, id)
TTL toDateTime(ts) + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed signal_events cityHash64(symbol)
