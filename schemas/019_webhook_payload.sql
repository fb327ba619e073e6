-- Webhook events are a type and an opaque payload (catalog/webhook-events.ts, docs/webhooks.md "Event
-- types"): each delivery row carries its payload as JSON text. Rows stored before this column keep their
-- signal fields in symbol, direction, confidence and composite, and read back with payload '' (the outbox
-- rebuilds their payload from those columns, so their bodies keep their bytes); new rows leave those three
-- at their defaults. `symbol` stays: the payload's symbol, shown in the delivery log.
-- The second statement adds the column to the Distributed table of a cluster; on one node it is the same
-- table, and IF NOT EXISTS makes it a no-op.

ALTER TABLE {{table:webhook_deliveries}} {{on_cluster}} ADD COLUMN IF NOT EXISTS payload String DEFAULT '' AFTER symbol;

ALTER TABLE webhook_deliveries {{on_cluster}} ADD COLUMN IF NOT EXISTS payload String DEFAULT '' AFTER symbol;
