-- Raw tables, one per normalized record kind (engine/records/fields.ts gives the column order).
-- Tick-level data lives 90 days (TTL drops whole parts). High-volume tables partition by day, the others
-- by week, so a TTL drop frees whole parts and partition counts stay low (< 100 live).
-- `ingest_ts` is the time the row reached the store; the exchange time is `ts`.

CREATE TABLE IF NOT EXISTS {{table:trades}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  exchange LowCardinality(String),
  market Enum8('perp' = 1, 'spot' = 2),
  symbol LowCardinality(String),
  base LowCardinality(String),
  quote LowCardinality(String),
  side Enum8('buy' = 1, 'sell' = 2),
  price Float64 CODEC(ZSTD(1)),
  qty Float64 CODEC(ZSTD(1)),
  trade_id String CODEC(ZSTD(1)),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toDate(ts)
ORDER BY (base, exchange, symbol, ts, trade_id)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed trades cityHash64(base)

CREATE TABLE IF NOT EXISTS {{table:funding}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  base LowCardinality(String),
  funding_rate Float64 CODEC(ZSTD(1)),
  interval_hours UInt8,
  next_funding_ts Nullable(DateTime64(3, 'UTC')),
  mark_price Nullable(Float64),
  index_price Nullable(Float64),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toMonday(ts)
ORDER BY (base, exchange, symbol, ts)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed funding cityHash64(base)

CREATE TABLE IF NOT EXISTS {{table:open_interest}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  base LowCardinality(String),
  oi_base Float64 CODEC(ZSTD(1)),
  oi_usd Float64 CODEC(ZSTD(1)),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toMonday(ts)
ORDER BY (base, exchange, symbol, ts)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed open_interest cityHash64(base)

CREATE TABLE IF NOT EXISTS {{table:long_short}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  base LowCardinality(String),
  long_short_ratio Float64 CODEC(ZSTD(1)),
  long_account Nullable(Float64),
  short_account Nullable(Float64),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toMonday(ts)
ORDER BY (base, exchange, symbol, ts)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed long_short cityHash64(base)

CREATE TABLE IF NOT EXISTS {{table:liquidations}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  exchange LowCardinality(String),
  symbol LowCardinality(String),
  base LowCardinality(String),
  side Enum8('buy' = 1, 'sell' = 2),
  price Float64 CODEC(ZSTD(1)),
  qty Float64 CODEC(ZSTD(1)),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toMonday(ts)
ORDER BY (base, exchange, symbol, ts)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed liquidations cityHash64(base)

-- Deribit option quotes. open_interest and volume_24h are in contracts; one BTC/ETH contract is one coin.
CREATE TABLE IF NOT EXISTS {{table:option_quotes}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  exchange LowCardinality(String),
  instrument LowCardinality(String),
  underlying_price Float64 CODEC(ZSTD(1)),
  mark_price Float64 CODEC(ZSTD(1)),
  mark_iv Nullable(Float64),
  open_interest Float64 CODEC(ZSTD(1)),
  volume_24h Float64 CODEC(ZSTD(1)),
  bid Nullable(Float64),
  ask Nullable(Float64),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toDate(ts)
ORDER BY (instrument, ts)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed option_quotes cityHash64(instrument)

CREATE TABLE IF NOT EXISTS {{table:whale_transfers}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  chain LowCardinality(String),
  tx_hash String CODEC(ZSTD(1)),
  log_index UInt32,
  block_number UInt64 CODEC(Delta, ZSTD(1)),
  address String CODEC(ZSTD(1)),
  counterparty String CODEC(ZSTD(1)),
  event_type Enum8('transfer_in' = 1, 'transfer_out' = 2, 'swap' = 3),
  token LowCardinality(String),
  amount Float64 CODEC(ZSTD(1)),
  usd_value Float64 CODEC(ZSTD(1)),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toMonday(ts)
ORDER BY (chain, ts, tx_hash, log_index)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed whale_transfers cityHash64(chain)

CREATE TABLE IF NOT EXISTS {{table:onchain_metrics}} {{on_cluster}} (
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  asset LowCardinality(String),
  metric LowCardinality(String),
  value Float64 CODEC(ZSTD(1)),
  ingest_ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toMonday(ts)
ORDER BY (asset, metric, ts)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed onchain_metrics cityHash64(asset)
