-- Accounts (issue 17, docs/accounts.md). Every table is "last version wins" (ReplacingMergeTree, read with
-- FINAL): a change writes the whole row again with a higher version.
--   accounts        email (lower case), scrypt password hash (engine/accounts/password.ts), role, plan and
--                   the id of the account's `dashboard` key (the key a session stands in for)
--   sessions        only the SHA-256 of the session id is stored; ended_at set by logout or a password change
--   invites         only the SHA-256 of the invite token is stored; used_at set once it is spent
--   api_key_owners  which account an API key belongs to (keys made with the admin token have no row)

CREATE TABLE IF NOT EXISTS {{table:accounts}} {{on_cluster}} (
  id String,
  email String,
  password_hash String,
  role LowCardinality(String),
  plan LowCardinality(String),
  dashboard_key_id String,
  created_at DateTime64(3, 'UTC'),
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY id
SETTINGS {{dedup_window}};
-- @distributed accounts cityHash64(id)

CREATE TABLE IF NOT EXISTS {{table:sessions}} {{on_cluster}} (
  id_sha256 String,
  account_id String,
  created_at DateTime64(3, 'UTC'),
  last_seen_at DateTime64(3, 'UTC'),
  ended_at Nullable(DateTime64(3, 'UTC')),
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY id_sha256
TTL toDateTime(created_at) + INTERVAL 60 DAY DELETE
SETTINGS {{dedup_window}};
-- @distributed sessions cityHash64(id_sha256)

CREATE TABLE IF NOT EXISTS {{table:invites}} {{on_cluster}} (
  token_sha256 String,
  created_by String,
  created_at DateTime64(3, 'UTC'),
  expires_at DateTime64(3, 'UTC'),
  used_at Nullable(DateTime64(3, 'UTC')),
  used_by String,
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY token_sha256
SETTINGS {{dedup_window}};
-- @distributed invites cityHash64(token_sha256)

CREATE TABLE IF NOT EXISTS {{table:api_key_owners}} {{on_cluster}} (
  key_id String,
  account_id String,
  version UInt64
) ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY key_id
SETTINGS {{dedup_window}};
-- @distributed api_key_owners cityHash64(key_id)
