-- Sequence checks of inbound alerts (docs/alerts.md "Sequence checks"): per API key, strategy and symbol,
-- the counts of alerts received, missing, late and out of order, the newest sequence value and the last
-- arrival (times as epoch ms, 0 = none). The newest version of a row wins (read with FINAL).
-- `silence_bars` on alert_settings: bars of a strategy's timeframe without an alert before it is declared
-- silent (0: no silence check). The third statement adds the column to the Distributed table of a cluster;
-- on one node it is the same table, and IF NOT EXISTS makes it a no-op.

CREATE TABLE IF NOT EXISTS {{table:alert_strategies}} {{on_cluster}} (
  key_id String,
  strategy String,
  symbol String,
  timeframe String,
  received UInt64,
  missing UInt64,
  late UInt64,
  out_of_order UInt64,
  last_seq_kind LowCardinality(String),
  last_seq Float64,
  last_received_ms Int64,
  silent_since_ms Int64,
  silences UInt64,
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY (key_id, strategy, symbol)
SETTINGS {{dedup_window}};
-- @distributed alert_strategies cityHash64(key_id)

ALTER TABLE {{table:alert_settings}} {{on_cluster}} ADD COLUMN IF NOT EXISTS silence_bars UInt16 DEFAULT 0;

ALTER TABLE alert_settings {{on_cluster}} ADD COLUMN IF NOT EXISTS silence_bars UInt16 DEFAULT 0;
