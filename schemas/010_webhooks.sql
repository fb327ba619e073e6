-- Outbound webhooks (issue 14, docs/webhooks.md). ClickHouse is not transactional, so the outbox is built
-- from single-table inserts (each insert of one block is atomic) and versions:
--   webhooks            registrations; the last version of an id wins (read with FINAL). The signing key
--                       (SHA-256 hex of the secret) is stored only sealed with AES-256-GCM (WEBHOOK_KEY).
--   webhook_deliveries  one row per (event, webhook) carrying the event's fields, written before the first
--                       attempt; every state change writes the whole row again with a higher version, so
--                       FINAL gives each delivery's current state (pending, delivered, failed).
--   webhook_attempts    append-only log of attempts (status or error, duration, response excerpt, next retry).
-- Kept 30 days: the window in which failed deliveries can be redelivered.
-- Numbered 010 to leave 007-009 to the signal engine and inbound alerts being built beside it.

CREATE TABLE IF NOT EXISTS {{table:webhooks}} {{on_cluster}} (
  id UInt64,
  key_id String,
  url String,
  events Array(LowCardinality(String)),
  symbols Array(String),
  signing_key_sealed String,
  state LowCardinality(String),
  state_reason String,
  created_at DateTime64(3, 'UTC'),
  updated_at DateTime64(3, 'UTC'),
  failing_since Nullable(DateTime64(3, 'UTC')),
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY id
SETTINGS {{dedup_window}};
-- @distributed webhooks cityHash64(id)

CREATE TABLE IF NOT EXISTS {{table:webhook_deliveries}} {{on_cluster}} (
  delivery_id String,
  webhook_id UInt64,
  key_id String,
  event_id String,
  event LowCardinality(String),
  event_ts DateTime64(3, 'UTC'),
  symbol String,
  direction LowCardinality(String),
  confidence String,
  composite Float64,
  trigger LowCardinality(String),
  state LowCardinality(String),
  attempts UInt16,
  round_start UInt16,
  next_attempt_at Nullable(DateTime64(3, 'UTC')),
  last_status UInt16,
  last_error String,
  created_at DateTime64(3, 'UTC'),
  updated_at DateTime64(3, 'UTC'),
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (webhook_id, created_at, delivery_id)
TTL toDateTime(created_at) + INTERVAL 30 DAY DELETE
SETTINGS {{dedup_window}};
-- @distributed webhook_deliveries cityHash64(webhook_id)

CREATE TABLE IF NOT EXISTS {{table:webhook_attempts}} {{on_cluster}} (
  delivery_id String,
  webhook_id UInt64,
  event_id String,
  event LowCardinality(String),
  attempt UInt16,
  trigger LowCardinality(String),
  at DateTime64(3, 'UTC'),
  duration_ms UInt32,
  status_code UInt16,
  error String,
  response_excerpt String,
  next_retry_at Nullable(DateTime64(3, 'UTC'))
) ENGINE = {{engine:MergeTree}}
PARTITION BY toYYYYMMDD(at)
ORDER BY (webhook_id, delivery_id, attempt, at)
TTL toDateTime(at) + INTERVAL 30 DAY DELETE
SETTINGS {{dedup_window}};
-- @distributed webhook_attempts cityHash64(webhook_id)
