-- Derivatives aggregates, kept 24 months.
-- funding_1h is the funding heatmap source: per exchange and symbol per hour, the last reading, the mean,
-- the extremes and the interval (rates are decimal fractions per interval; annualize with 8760/interval).
-- funding_1d cascades from funding_1h. open_interest_1h and liquidations_1h serve history and backtests.

CREATE TABLE IF NOT EXISTS {{table:funding_1h}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  rate_last AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  rate_avg AggregateFunction(avg, Float64),
  rate_min SimpleAggregateFunction(min, Float64),
  rate_max SimpleAggregateFunction(max, Float64),
  interval_hours SimpleAggregateFunction(max, UInt8),
  samples SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed funding_1h cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS funding_1h_mv {{on_cluster}} TO {{table:funding_1h}} AS
SELECT base, exchange, symbol, toStartOfHour(ts) AS bucket,
  argMaxState(funding_rate, ts) AS rate_last, avgState(funding_rate) AS rate_avg,
  min(funding_rate) AS rate_min, max(funding_rate) AS rate_max,
  max(interval_hours) AS interval_hours, count() AS samples
FROM {{table:funding}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:funding_1d}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  rate_last AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  rate_avg AggregateFunction(avg, Float64),
  rate_min SimpleAggregateFunction(min, Float64),
  rate_max SimpleAggregateFunction(max, Float64),
  interval_hours SimpleAggregateFunction(max, UInt8),
  samples SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed funding_1d cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS funding_1d_mv {{on_cluster}} TO {{table:funding_1d}} AS
SELECT base, exchange, symbol, toStartOfDay(bucket, 'UTC') AS bucket,
  argMaxMergeState(rate_last) AS rate_last, avgMergeState(rate_avg) AS rate_avg,
  min(rate_min) AS rate_min, max(rate_max) AS rate_max,
  max(interval_hours) AS interval_hours, sum(samples) AS samples
FROM {{table:funding_1h}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:open_interest_1h}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  oi_base_last AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  oi_usd_last AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  oi_usd_max SimpleAggregateFunction(max, Float64),
  oi_usd_min SimpleAggregateFunction(min, Float64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed open_interest_1h cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS open_interest_1h_mv {{on_cluster}} TO {{table:open_interest_1h}} AS
SELECT base, exchange, symbol, toStartOfHour(ts) AS bucket,
  argMaxState(oi_base, ts) AS oi_base_last, argMaxState(oi_usd, ts) AS oi_usd_last,
  max(oi_usd) AS oi_usd_max, min(oi_usd) AS oi_usd_min
FROM {{table:open_interest}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:liquidations_1h}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  side Enum8('buy' = 1, 'sell' = 2),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  qty_base SimpleAggregateFunction(sum, Float64),
  usd SimpleAggregateFunction(sum, Float64),
  events SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, side, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed liquidations_1h cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS liquidations_1h_mv {{on_cluster}} TO {{table:liquidations_1h}} AS
SELECT base, exchange, symbol, side, toStartOfHour(ts) AS bucket,
  sum(qty) AS qty_base, sum(price * qty) AS usd, count() AS events
FROM {{table:liquidations}}
GROUP BY base, exchange, symbol, side, bucket;
