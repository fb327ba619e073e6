-- Inbound alerts (issue 14): per API key, the alert secret and the alert settings. Last version wins (read
-- with FINAL); only the SHA-256 of the secret's random part is stored ('' = no secret: alerts refused).

CREATE TABLE IF NOT EXISTS {{table:alert_settings}} {{on_cluster}} (
  key_id String,
  secret_sha256 String,
  secret_created_at Nullable(DateTime64(3, 'UTC')),
  forward UInt8,
  updated_at DateTime64(3, 'UTC'),
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY key_id
SETTINGS {{dedup_window}};
-- @distributed alert_settings cityHash64(key_id)
