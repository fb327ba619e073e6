-- Merge policy of the weekly reading tables a point-in-time series reads (engine/asof/series-load.ts):
-- funding, open interest, long/short, on-chain metrics and whale transfers. A bulk load (the demo backfill,
-- an import) leaves each week's partition as one large part and several small ones, which the default merge
-- selector keeps apart (their sizes differ too much), and every active part costs a read at least one
-- granule and its own setup: 19 parts for 5 weeks of funding after a 31-day backfill. With these settings a
-- run of parts all older than 300 s is merged whatever their sizes, so a week no longer written to becomes
-- one part 5 minutes after its last insert. The week being written keeps the default policy in effect: its
-- live part is merged again every few seconds, so it is never 300 s old while inserts go on. A merge rewrites
-- at most one week of one table (weekly partitions); merges feed no materialized view, so no aggregate
-- changes. Trades (daily partitions, the largest table) keep the default policy. Settings only: existing
-- parts are merged in the background once the store is open.

ALTER TABLE {{table:funding}} {{on_cluster}} MODIFY SETTING min_age_to_force_merge_seconds = 300;

ALTER TABLE {{table:open_interest}} {{on_cluster}} MODIFY SETTING min_age_to_force_merge_seconds = 300;

ALTER TABLE {{table:long_short}} {{on_cluster}} MODIFY SETTING min_age_to_force_merge_seconds = 300;

ALTER TABLE {{table:onchain_metrics}} {{on_cluster}} MODIFY SETTING min_age_to_force_merge_seconds = 300;

ALTER TABLE {{table:whale_transfers}} {{on_cluster}} MODIFY SETTING min_age_to_force_merge_seconds = 300;
