-- Per-key usage history for the account dashboard (issue 17, docs/accounts.md). `api_usage` (006) keeps the
-- accepted calls per key and UTC day; these add what it cannot:
--   api_throttled        calls refused with 429 quota_exceeded, per key and UTC day (deltas, summed)
--   api_key_last_used    the time of a key's last counted call (written at most once per flush per key)
-- Kept 400 days like api_usage; the dashboard shows the last 30.

CREATE TABLE IF NOT EXISTS {{table:api_throttled}} {{on_cluster}} (
  key_id String,
  day Date,
  throttled UInt64
) ENGINE = {{engine:SummingMergeTree(throttled)}}
ORDER BY (key_id, day)
TTL day + INTERVAL 400 DAY DELETE
SETTINGS {{dedup_window}};
-- @distributed api_throttled cityHash64(key_id)

CREATE TABLE IF NOT EXISTS {{table:api_key_last_used}} {{on_cluster}} (
  key_id String,
  last_used_at DateTime64(3, 'UTC')
) ENGINE = {{engine:ReplacingMergeTree(last_used_at)}}
ORDER BY key_id
SETTINGS {{dedup_window}};
-- @distributed api_key_last_used cityHash64(key_id)
