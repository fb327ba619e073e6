-- The cascaded candle views (5m, 15m and 1h from 1m; 4h and 1d from 1h; 1w and 1mo from 1d) add their
-- volumes as exact decimals (12 decimal places) instead of floats. A view reads its source block in the
-- order the view before it wrote it (its GROUP BY's hash order, which depends on what else the insert
-- held), and float addition depends on the order: the same hour of the same trades summed to volumes
-- differing in the last bits when it arrived in a longer or shorter load. Decimal sums do not depend on the
-- order, so an hour's candle is the same value whatever else its insert carried (docs/benchmarks.md
-- "Scale"). Values are rounded to 1e-12 before adding; the stored columns stay Float64. The 1m view sums
-- its raw trades in insert order and is unchanged. Each view is dropped and created again under the same
-- name (migrations run before any ingest starts).

DROP VIEW IF EXISTS candles_5m_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_5m_mv {{on_cluster}} TO {{table:candles_5m}} AS
SELECT base, exchange, symbol, toStartOfFiveMinutes(bucket) AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1m}}
GROUP BY base, exchange, symbol, bucket;

DROP VIEW IF EXISTS candles_15m_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_15m_mv {{on_cluster}} TO {{table:candles_15m}} AS
SELECT base, exchange, symbol, toStartOfFifteenMinutes(bucket) AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1m}}
GROUP BY base, exchange, symbol, bucket;

DROP VIEW IF EXISTS candles_1h_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1h_mv {{on_cluster}} TO {{table:candles_1h}} AS
SELECT base, exchange, symbol, toStartOfHour(bucket) AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1m}}
GROUP BY base, exchange, symbol, bucket;

DROP VIEW IF EXISTS candles_4h_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_4h_mv {{on_cluster}} TO {{table:candles_4h}} AS
SELECT base, exchange, symbol, toStartOfInterval(bucket, INTERVAL 4 HOUR, 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1h}}
GROUP BY base, exchange, symbol, bucket;

DROP VIEW IF EXISTS candles_1d_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1d_mv {{on_cluster}} TO {{table:candles_1d}} AS
SELECT base, exchange, symbol, toStartOfDay(bucket, 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1h}}
GROUP BY base, exchange, symbol, bucket;

DROP VIEW IF EXISTS candles_1w_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1w_mv {{on_cluster}} TO {{table:candles_1w}} AS
SELECT base, exchange, symbol, toDateTime(toMonday(bucket), 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1d}}
GROUP BY base, exchange, symbol, bucket;

DROP VIEW IF EXISTS candles_1mo_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1mo_mv {{on_cluster}} TO {{table:candles_1mo}} AS
SELECT base, exchange, symbol, toDateTime(toStartOfMonth(bucket), 'UTC') AS bucket,
  argMinMergeState(open) AS open, max(high) AS high, min(low) AS low, argMaxMergeState(close) AS close,
  toFloat64(sum(toDecimal128(volume_base, 12))) AS volume_base, toFloat64(sum(toDecimal128(volume_quote, 12))) AS volume_quote, toFloat64(sum(toDecimal128(buy_volume_base, 12))) AS buy_volume_base,
  sum(trades) AS trades
FROM {{table:candles_1d}}
GROUP BY base, exchange, symbol, bucket;
