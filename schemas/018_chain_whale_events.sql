-- Whale events the chain sources derive from the operator's nodes (docs/whales.md, "Chain events"), with what
-- the whale_transfers row cannot hold: swap sides, hops, pools, flags, the price source, a null usd_value.
-- One row per (chain, tx_hash, log_index, address) per version: ReplacingMergeTree keeps the newest version,
-- and a row written with is_deleted = 1 retracts the event (a block that left the canonical chain). Read with
-- FINAL. status: pending = seen inside the confirmation depth (may still be retracted); confirmed = final
-- (its whale_transfers row, which feeds the flow aggregates, is written only then, so no aggregate ever
-- counts an event that a reorg removes); retracted rows carry is_deleted = 1.

CREATE TABLE IF NOT EXISTS {{table:chain_whale_events}} {{on_cluster}} (
  chain LowCardinality(String),
  tx_hash String CODEC(ZSTD(1)),
  log_index UInt32,
  address String CODEC(ZSTD(1)),
  block_number UInt64 CODEC(Delta, ZSTD(1)),
  block_hash String CODEC(ZSTD(1)),
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  counterparty String CODEC(ZSTD(1)),
  event_type Enum8('transfer_in' = 1, 'transfer_out' = 2, 'swap' = 3),
  token LowCardinality(String),
  amount Float64,
  token_in Nullable(String),
  amount_in Nullable(Float64),
  usd_value Nullable(Float64),
  price_source Nullable(String),
  hops UInt16,
  pools Array(String),
  repeat_count UInt32,
  circular Bool,
  internal Bool,
  label Nullable(String),
  status Enum8('pending' = 1, 'confirmed' = 2, 'retracted' = 3),
  version UInt64,
  is_deleted UInt8
) ENGINE = {{engine:ReplacingMergeTree(version, is_deleted)}}
PARTITION BY toMonday(ts)
ORDER BY (chain, tx_hash, log_index, address)
TTL toDateTime(ts) + INTERVAL 90 DAY DELETE
SETTINGS ttl_only_drop_parts = 1, {{dedup_window}};
-- @distributed chain_whale_events cityHash64(chain)
