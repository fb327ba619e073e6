-- Webhook events, one row per event (docs/webhooks.md, "Durability"): its type, time and payload as JSON
-- text, written once per event however many webhooks it goes to. Delivery rows written from this
-- migration on reference it by event_id and leave their own payload column ''; rows written before keep
-- their payload (schemas/019_webhook_payload.sql) or their signal columns, and the outbox reads those when
-- an event has no row here. A delivery read back from its older rows (a resume, a redelivery) has its
-- event row written then, so its later row versions need no payload of their own.
-- An event journaled twice (a redelivery, a restart) keeps its id and payload: the last row of an id wins,
-- and readers take one row per event_id. Kept 30 days, as the deliveries that reference it.

CREATE TABLE IF NOT EXISTS {{table:webhook_events}} {{on_cluster}} (
  event_id String,
  event LowCardinality(String),
  event_ts DateTime64(3, 'UTC'),
  payload String,
  created_at DateTime64(3, 'UTC')
) ENGINE = {{engine:ReplacingMergeTree}}
PARTITION BY toYYYYMMDD(created_at)
ORDER BY event_id
TTL toDateTime(created_at) + INTERVAL 30 DAY DELETE
SETTINGS {{dedup_window}};
-- @distributed webhook_events cityHash64(event_id)
