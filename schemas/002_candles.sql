-- OHLCV candles per exchange and symbol. 1m comes from trades; the others cascade from states:
-- 5m, 15m, 1h from 1m; 4h, 1d from 1h; 1w (Monday start, UTC) and 1M from 1d. Each level stores
-- aggregate states (open/close as argMin/argMax by trade time), so a read must GROUP BY with -Merge:
--   argMinMerge(open), max(high), min(low), argMaxMerge(close), sum(volume_base), sum(volume_quote), sum(trades)
-- Every target has a dedup window so a retried insert (same token) never double-counts a cascade level.
-- Aggregates live 24 months.

CREATE TABLE IF NOT EXISTS {{table:candles_1m}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_1m cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1m_mv {{on_cluster}} TO {{table:candles_1m}} AS
SELECT base, exchange, symbol, toStartOfMinute(ts) AS bucket,
  argMinState(price, ts) AS open, max(price) AS high, min(price) AS low, argMaxState(price, ts) AS close,
  sum(qty) AS volume_base, sum(price * qty) AS volume_quote, sumIf(qty, side = 'buy') AS buy_volume_base,
  count() AS trades
FROM {{table:trades}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_5m}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_5m cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_5m_mv {{on_cluster}} TO {{table:candles_5m}} AS
SELECT base, exchange, symbol, toStartOfFiveMinutes(bucket) AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1m}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_15m}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_15m cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_15m_mv {{on_cluster}} TO {{table:candles_15m}} AS
SELECT base, exchange, symbol, toStartOfFifteenMinutes(bucket) AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1m}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_1h}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_1h cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1h_mv {{on_cluster}} TO {{table:candles_1h}} AS
SELECT base, exchange, symbol, toStartOfHour(bucket) AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1m}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_4h}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_4h cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_4h_mv {{on_cluster}} TO {{table:candles_4h}} AS
SELECT base, exchange, symbol, toStartOfInterval(bucket, INTERVAL 4 HOUR, 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1h}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_1d}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_1d cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1d_mv {{on_cluster}} TO {{table:candles_1d}} AS
SELECT base, exchange, symbol, toStartOfDay(bucket, 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1h}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_1w}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_1w cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1w_mv {{on_cluster}} TO {{table:candles_1w}} AS
SELECT base, exchange, symbol, toDateTime(toMonday(bucket), 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1d}}
GROUP BY base, exchange, symbol, bucket;

CREATE TABLE IF NOT EXISTS {{table:candles_1mo}} {{on_cluster}} (
  base LowCardinality(String),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  bucket DateTime('UTC') CODEC(Delta, ZSTD(1)),
  open AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
  high SimpleAggregateFunction(max, Float64),
  low SimpleAggregateFunction(min, Float64),
  close AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
  volume_base SimpleAggregateFunction(sum, Float64),
  volume_quote SimpleAggregateFunction(sum, Float64),
  buy_volume_base SimpleAggregateFunction(sum, Float64),
  trades SimpleAggregateFunction(sum, UInt64)
) ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (base, exchange, symbol, bucket)
TTL bucket + INTERVAL 24 MONTH DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed candles_1mo cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1mo_mv {{on_cluster}} TO {{table:candles_1mo}} AS
SELECT base, exchange, symbol, toDateTime(toStartOfMonth(bucket), 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(buy_volume_base) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1d}}
GROUP BY base, exchange, symbol, bucket;
