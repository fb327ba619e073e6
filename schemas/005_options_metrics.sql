-- Options metrics per currency over time. Max pain has no clean SQL form over a stream of quotes, so the
-- engine computes the chain summary from its in-memory chain and writes one snapshot row per currency
-- (options_metrics) and per currency and expiry (options_expiry_metrics) each minute. options_metrics_1h
-- rolls the minute rows up (last value in the hour, by snapshot time). All kept 24 months.

CREATE TABLE IF NOT EXISTS {{table:options_metrics}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  currency LowCardinality(String),
  underlying_price Float64,
  total_call_oi Float64,
  total_put_oi Float64,
  total_call_volume Float64,
  total_put_volume Float64,
  pcr_oi Nullable(Float64),
  pcr_volume Nullable(Float64),
  nearest_expiry String,
  max_pain_nearest Nullable(Float64)
) ENGINE = {{engine:MergeTree}}
PARTITION BY toYYYYMM(ts)
ORDER BY (currency, ts)
TTL toDateTime(ts) + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed options_metrics cityHash64(currency)

CREATE TABLE IF NOT EXISTS {{table:options_expiry_metrics}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  currency LowCardinality(String),
  expiry_code LowCardinality(String),
  expiry_ts DateTime64(3, 'UTC'),
  call_oi Float64,
  put_oi Float64,
  pcr Nullable(Float64),
  max_pain Float64,
  total_pain_quote Float64
) ENGINE = {{engine:MergeTree}}
PARTITION BY toYYYYMM(ts)
ORDER BY (currency, expiry_ts, ts)
TTL toDateTime(ts) + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed options_expiry_metrics cityHash64(currency)

CREATE TABLE IF NOT EXISTS {{table:options_metrics_1h}} {{on_cluster}} (
  currency LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  underlying_price AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  total_call_oi AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  total_put_oi AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  pcr_oi AggregateFunction(argMax, Nullable(Float64), DateTime64(3, 'UTC')),
  pcr_volume AggregateFunction(argMax, Nullable(Float64), DateTime64(3, 'UTC')),
  max_pain_nearest AggregateFunction(argMax, Nullable(Float64), DateTime64(3, 'UTC')),
  samples SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (currency, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed options_metrics_1h cityHash64(currency)

CREATE MATERIALIZED VIEW IF NOT EXISTS options_metrics_1h_mv {{on_cluster}} TO {{table:options_metrics_1h}} AS
SELECT currency, toStartOfHour(ts) AS bucket,
  argMaxState(underlying_price, ts) AS underlying_price,
  argMaxState(total_call_oi, ts) AS total_call_oi, argMaxState(total_put_oi, ts) AS total_put_oi,
  argMaxState(pcr_oi, ts) AS pcr_oi, argMaxState(pcr_volume, ts) AS pcr_volume,
  argMaxState(max_pain_nearest, ts) AS max_pain_nearest, count() AS samples
FROM {{table:options_metrics}}
GROUP BY currency, bucket;

-- Small state the engine keeps across restarts (e.g. the demo market's backfill progress).
-- Last write wins by `updated`; read with argMax(value, updated).
CREATE TABLE IF NOT EXISTS {{table:engine_state}} {{on_cluster}} (
  key String,
  value String,
  updated DateTime64(3, 'UTC')
) ENGINE = {{engine:ReplacingMergeTree(updated)}}
ORDER BY key
SETTINGS {{dedup_window}};
-- @distributed engine_state rand()
