-- Node intelligence: the token watch list and the verdict history of watched tokens (docs/node-intel.md,
-- "Watch list and re-checks").
--   token_watch     the tokens API keys registered for re-checks (POST /v1/node/{chain}/watch): one row per
--                   (key_id, chain, token) per version; the newest version wins under FINAL, and a row with
--                   is_deleted = 1 is a registration removed (DELETE). Tokens of new pairs are not stored:
--                   the new-pairs watcher finds them again after a restart.
--   token_verdicts  append-only history: the first check of a watched token (trigger `watch`), then one row
--                   per re-check whose verdict changed or whose tax moved by more than
--                   NODEINTEL_RECHECK_TAX_DELTA_PCT. Taxes in percent, null when the step did not run.

CREATE TABLE IF NOT EXISTS {{table:token_watch}} {{on_cluster}} (
  key_id String,
  chain LowCardinality(String),
  token String,
  created_at DateTime64(3, 'UTC'),
  version UInt64,
  is_deleted UInt8
) ENGINE = {{engine:ReplacingMergeTree(version, is_deleted)}}
ORDER BY (key_id, chain, token)
SETTINGS {{dedup_window}};
-- @distributed token_watch cityHash64(key_id)

CREATE TABLE IF NOT EXISTS {{table:token_verdicts}} {{on_cluster}} (
  chain LowCardinality(String),
  token String,
  checked_at DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  block_number UInt64,
  verdict LowCardinality(String),
  is_honeypot Nullable(Bool),
  method LowCardinality(String),
  buy_tax_pct Nullable(Float64),
  sell_tax_pct Nullable(Float64),
  transfer_tax_pct Nullable(Float64),
  reasons Array(String),
  changed Array(LowCardinality(String)),
  trigger LowCardinality(String),
  trigger_tx Nullable(String),
  trigger_block Nullable(UInt64),
  trigger_detail Nullable(String),
  trigger_from Nullable(String)
) ENGINE = {{engine:MergeTree}}
PARTITION BY toYYYYMM(checked_at)
ORDER BY (chain, token, checked_at)
SETTINGS {{dedup_window}};
-- @distributed token_verdicts cityHash64(token)
