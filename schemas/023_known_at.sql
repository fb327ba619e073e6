-- Known-at ledger: per raw table and event-time hour, the latest receive time (`ingest_ts`) of any row of
-- that hour, and how many rows. A point-in-time read (engine/asof/known-at.ts) takes an hour's aggregate
-- (candles_1h, funding_1h, ...) only when every row of it had been received by the moment asked
-- (`last_known <= known_by`); any other hour is recomputed from the raw rows received by then. Live rows
-- arrive within seconds of their event time, so only the newest hour and hours touched by a later import
-- or gap fill are read raw. Rows stored before this ledger existed are not in it: they count as known.

CREATE TABLE IF NOT EXISTS {{table:known_at_1h}} {{on_cluster}} (
  tbl LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  first_known SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
  last_known SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
  rows SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (tbl, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed known_at_1h cityHash64(tbl)

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_trades_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'trades' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:trades}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_funding_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'funding' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:funding}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_open_interest_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'open_interest' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:open_interest}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_long_short_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'long_short' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:long_short}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_liquidations_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'liquidations' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:liquidations}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_option_quotes_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'option_quotes' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:option_quotes}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_whale_transfers_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'whale_transfers' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:whale_transfers}}
GROUP BY bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS known_at_onchain_metrics_mv {{on_cluster}} TO {{table:known_at_1h}} AS
SELECT 'onchain_metrics' AS tbl, toStartOfHour(ts) AS bucket, min(ingest_ts) AS first_known, max(ingest_ts) AS last_known,
  count() AS rows
FROM {{table:onchain_metrics}}
GROUP BY bucket;
