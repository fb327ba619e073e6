-- Whale flows per chain, token and direction (event_type) per hour and per day, 24 months.
-- These count raw transfer rows; near-duplicate collapsing (multi-hop legs, wash loops) is an API-level
-- view of the events, not applied here. usd_in counts transfer_in, usd_out transfer_out.

CREATE TABLE IF NOT EXISTS {{table:whale_flows_1h}} {{on_cluster}} (
  chain LowCardinality(String),
  token LowCardinality(String),
  event_type Enum8('transfer_in' = 1, 'transfer_out' = 2, 'swap' = 3),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  events SimpleAggregateFunction(sum, UInt64),
  amount SimpleAggregateFunction(sum, Float64),
  usd_total SimpleAggregateFunction(sum, Float64),
  usd_in SimpleAggregateFunction(sum, Float64),
  usd_out SimpleAggregateFunction(sum, Float64),
  wallets AggregateFunction(uniq, String)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (chain, token, event_type, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed whale_flows_1h cityHash64(chain)

CREATE MATERIALIZED VIEW IF NOT EXISTS whale_flows_1h_mv {{on_cluster}} TO {{table:whale_flows_1h}} AS
SELECT chain, token, event_type, toStartOfHour(ts) AS bucket,
  count() AS events, sum(amount) AS amount, sum(usd_value) AS usd_total,
  sumIf(usd_value, event_type = 'transfer_in') AS usd_in, sumIf(usd_value, event_type = 'transfer_out') AS usd_out,
  uniqState(address) AS wallets
FROM {{table:whale_transfers}}
GROUP BY chain, token, event_type, bucket;

CREATE TABLE IF NOT EXISTS {{table:whale_flows_1d}} {{on_cluster}} (
  chain LowCardinality(String),
  token LowCardinality(String),
  event_type Enum8('transfer_in' = 1, 'transfer_out' = 2, 'swap' = 3),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  events SimpleAggregateFunction(sum, UInt64),
  amount SimpleAggregateFunction(sum, Float64),
  usd_total SimpleAggregateFunction(sum, Float64),
  usd_in SimpleAggregateFunction(sum, Float64),
  usd_out SimpleAggregateFunction(sum, Float64),
  wallets AggregateFunction(uniq, String)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (chain, token, event_type, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed whale_flows_1d cityHash64(chain)

CREATE MATERIALIZED VIEW IF NOT EXISTS whale_flows_1d_mv {{on_cluster}} TO {{table:whale_flows_1d}} AS
SELECT chain, token, event_type, toStartOfDay(bucket, 'UTC') AS bucket,
  sum(events) AS events, sum(amount) AS amount, sum(usd_total) AS usd_total,
  sum(usd_in) AS usd_in, sum(usd_out) AS usd_out, uniqMergeState(wallets) AS wallets
FROM {{table:whale_flows_1h}}
GROUP BY chain, token, event_type, bucket;
