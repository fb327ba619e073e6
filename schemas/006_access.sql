-- API keys and daily usage (issue 3). Keys: last version wins (read with FINAL); only the SHA-256 of the
-- secret is stored. Usage: per key per UTC day, deltas summed (SummingMergeTree); every flush carries its
-- own dedup token, so two equal deltas are never mistaken for a retry.

CREATE TABLE IF NOT EXISTS {{table:api_keys}} {{on_cluster}} (
  id String,
  name String,
  plan LowCardinality(String),
  secret_sha256 String,
  created_at DateTime64(3, 'UTC'),
  revoked_at Nullable(DateTime64(3, 'UTC')),
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY id
SETTINGS {{dedup_window}};
-- @distributed api_keys cityHash64(id)

CREATE TABLE IF NOT EXISTS {{table:api_usage}} {{on_cluster}} (
  key_id String,
  day Date,
  calls UInt64
) ENGINE = {{engine:SummingMergeTree(calls)}}
ORDER BY (key_id, day)
TTL day + INTERVAL 400 DAY DELETE
SETTINGS {{dedup_window}};
-- @distributed api_usage cityHash64(key_id)
