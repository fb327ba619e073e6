/**
 * @module
 * The answer of `GET /v1/health` (server/routes/health.ts): store, sources (venue feeds and chain sources),
 * loops, live state, process figures, ingest counters and the sections the service modules contribute.
 */
import { Type } from '@sinclair/typebox'

/** Optional per-source counters of venue feeds (live and replay). */
const VENUE_COUNTERS = [
  'markets',
  'connections',
  'reconnects',
  'stale',
  'messages',
  'parse_errors',
  'unknown_messages',
  'venue_errors',
  'duplicates',
  'dropped',
  'gaps_found',
  'gaps_filled',
  'gaps_unfilled',
  'unsequenced',
  'rest_errors',
  'rate_limited'
] as const

const nullableInt = (description: string) => Type.Optional(Type.Union([Type.Integer({ description }), Type.Null()]))
const count = (description: string) => Type.Optional(Type.Integer({ description }))

/** The `chain` object of a chain source's entry: EVM fields, or Solana's (wallets, slots). */
const CHAIN_HEALTH = Type.Object(
  {
    chain_id: count('the chain id the source expects'),
    chain_id_ok: Type.Optional(
      Type.Union([Type.Boolean({ description: 'the node reported that chain id' }), Type.Null()])
    ),
    head: nullableInt('newest block number the node reported'),
    last_processed: nullableInt('newest block whose confirmed events are stored'),
    lag_blocks: nullableInt('head minus last processed, blocks'),
    lag_s: nullableInt('now minus the time of the last processed block (Solana: slot), seconds'),
    confirmations: count('blocks deep before events are final'),
    reorgs: count('reorgs handled inside the confirmation depth'),
    deep_reorgs: count('reorgs deeper than the confirmation depth (logged, events kept)'),
    retracted: count('events retracted by reorgs'),
    logs: count('logs processed'),
    malformed_logs: count('logs that could not be decoded'),
    receipts: count('transaction receipts read'),
    rpc_calls: count('RPC calls made'),
    rpc_errors: count('RPC calls that failed'),
    span_blocks: count('current eth_getLogs span, blocks'),
    span_halvings: count('times the span was halved on a provider refusal'),
    pending_events: count('events inside the confirmation depth, not yet final'),
    unpriced_events: count('events without a USD value (no price at the event time)'),
    ws: Type.Optional(
      Type.Union([Type.Literal('off'), Type.Literal('subscribed'), Type.Literal('failed')], {
        description: 'new-heads subscription over <CHAIN>_WS_URL'
      })
    ),
    wallets: count('Solana: watched wallets'),
    signatures: count('Solana: signatures read'),
    transactions: count('Solana: transactions read'),
    failed_transactions: count('Solana: failed transactions skipped'),
    last_slot: nullableInt('Solana: newest slot handled')
  },
  { description: 'chain source health (docs/sources.md)' }
)

/** The `/v1/health` answer; sections a module contributes are optional. */
export const HEALTH_RESPONSE = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  version: Type.String(),
  uptime_s: Type.Integer(),
  store: Type.Object({
    kind: Type.Union([Type.Literal('chdb'), Type.Literal('clickhouse')]),
    ok: Type.Boolean(),
    engine_memory_mb: Type.Optional(
      Type.Record(Type.String(), Type.Integer(), {
        description:
          'embedded store only, as of the last probe (5 s), MB: memory the engine tracks (tracked) and its caches (mark_cache, primary_index_cache, uncompressed_cache, query_condition_cache, compiled_expression_cache, query_cache)'
      })
    )
  }),
  sources: Type.Array(
    Type.Object({
      name: Type.String(),
      synthetic: Type.Boolean(),
      connected: Type.Boolean(),
      last_event_ts: Type.Union([Type.Integer({ description: 'epoch ms' }), Type.Null()]),
      rows: Type.Integer(),
      phase: Type.Optional(Type.String()),
      // venue feeds (ingest/sources/source.ts explains each)
      last_message_ts: Type.Optional(
        Type.Union([Type.Integer({ description: 'epoch ms, receive time' }), Type.Null()])
      ),
      ...Object.fromEntries(VENUE_COUNTERS.map((k) => [k, Type.Optional(Type.Integer())])),
      // chain sources (evm:<chain>, solana; docs/sources.md): one entry per chain
      chain: Type.Optional(CHAIN_HEALTH)
    })
  ),
  ready: Type.Boolean({
    description:
      'false while the service warms up (live state, first demo backfill): data endpoints answer 503 warming_up'
  }),
  waiting_for: Type.Array(Type.String(), { description: 'what readiness still waits for; empty once ready' }),
  synthetic: Type.Boolean({ description: 'the service holds synthetic demo data: every data answer is labelled' }),
  loops: Type.Array(
    Type.Object({
      name: Type.String(),
      state: Type.Union([
        Type.Literal('running'),
        Type.Literal('backoff'),
        Type.Literal('done'),
        Type.Literal('stopped')
      ]),
      errors: Type.Integer(),
      restarts: Type.Integer(),
      last_error: Type.Union([Type.String(), Type.Null()]),
      last_error_ts: Type.Union([Type.Integer({ description: 'epoch ms' }), Type.Null()])
    }),
    { description: 'supervised background loops: a failing loop is restarted with backoff (state backoff)' }
  ),
  live: Type.Object(
    {
      whale_window_rows: Type.Integer(),
      whale_window_dropped: Type.Integer(),
      queued: Type.Integer({ description: 'live records waiting for the live-state consumer' }),
      applied: Type.Integer(),
      dropped: Type.Integer({ description: 'records dropped because the consumer queue was full (they are stored)' }),
      apply_errors: Type.Integer({ description: 'batches whose application threw (counted and skipped)' }),
      rebuilds: Type.Integer(),
      rebuild_errors: Type.Integer(),
      rebuild_dropped: Type.Integer({ description: 'records that did not fit a rebuild replay buffer' }),
      path_ms: Type.Optional(
        Type.Record(
          Type.String(),
          Type.Object({ count: Type.Integer(), p50: Type.Number(), p99: Type.Number(), max: Type.Number() }),
          {
            description:
              'LIVE_PATH_PROBE=1 only: per stage (dequeued, normalized, offered, applied, published), the age of each live batch since its venue socket received it, ms (docs/benchmarks.md "Wire")'
          }
        )
      )
    },
    { description: 'the in-memory live state behind the hot endpoints (docs/architecture.md)' }
  ),
  webhooks: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description:
        'outbound webhooks: events, deliveries, attempts, delivered, failed, retries, dropped_queue_full, dropped_unstored, webhooks_disabled, store_errors, pending, in_flight, writer_queued (docs/webhooks.md)'
    })
  ),
  last_stop: Type.Optional(
    Type.Union(
      [
        Type.Null(),
        Type.Object({
          kind: Type.Union([Type.Literal('clean'), Type.Literal('forced'), Type.Literal('killed')]),
          at: Type.String({ description: 'when it ended (ISO 8601 UTC); for killed, when that run had started' }),
          reason: Type.Optional(Type.String()),
          left_unwritten: Type.Optional(
            Type.Union([
              Type.Null(),
              Type.Record(Type.String(), Type.Union([Type.Integer(), Type.Record(Type.String(), Type.Integer())]))
            ])
          )
        })
      ],
      {
        description:
          'how the previous run ended: clean, forced (with reason and left_unwritten: queued_rows, usage_calls, webhooks) or killed (no word: kill -9, OOM, crash); null on a first start (docs/deployment.md, "Stopping it")'
      }
    )
  ),
  accounts: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description:
        'accounts (docs/accounts.md): accounts, sessions, created, ended, expired, touch_errors, login_failures, login_throttled (attempts refused with 429), csrf_refused, hashes, hash_queue_full'
    })
  ),
  alerts: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description: 'inbound alerts: accepted, duplicates, forwarded, unauthorized, refused_senders'
    })
  ),
  stream: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description:
        'push stream: connections, subscriptions, channels, updates, messages (frames delivered), dropped_frames, slow_consumer_disconnects, connection_limit_closes, rejected_upgrades, client_errors'
    })
  ),
  signals: Type.Optional(
    Type.Object(
      {
        bases: Type.Integer({ description: 'bases the signal engine tracks now' }),
        states: Type.Integer({ description: 'base and direction pairs with a tracked state' }),
        restored: Type.Integer({ description: 'states rebuilt from stored events at start' }),
        evaluations: Type.Integer(),
        eval_errors: Type.Integer({ description: 'evaluations that failed (retried at the next pass)' }),
        no_data: Type.Integer({ description: 'evaluations of a base without any input data' }),
        fired: Type.Integer({ description: 'events the engine fired since start' }),
        last_error: Type.Union([Type.String(), Type.Null()]),
        queued: Type.Integer({ description: 'events waiting to be stored' }),
        stored: Type.Integer(),
        dropped: Type.Integer({ description: 'events not stored because the bounded queue was full' }),
        write_errors: Type.Integer({ description: 'inserts that failed (retried)' }),
        published: Type.Integer({ description: 'events published on the signal bus (engine and alerts)' }),
        listener_errors: Type.Integer({ description: 'bus subscribers that threw' })
      },
      { description: 'signal engine and event storage (docs/signals.md)' }
    )
  ),
  exports: Type.Object(
    {
      active: Type.Integer(),
      max: Type.Integer(),
      rejected: Type.Integer(),
      pin_restarts: Type.Integer()
    },
    {
      description:
        'bulk exports streaming now, the cap (EXPORT_MAX_CONCURRENT), exports refused with 503 at the cap, exports restarted with FINAL because a pinned part was replaced'
    }
  ),
  bodies: Type.Optional(
    Type.Object(
      {
        buffered_bytes: Type.Integer({ description: 'bytes of request bodies held in memory now (BODY_MEMORY_MB)' }),
        spooling: Type.Integer({ description: 'admin bodies being written to temp files now (at most 4)' }),
        read_bytes: Type.Integer({ description: 'request body bytes read since start' }),
        refused_busy: Type.Integer({ description: 'requests refused 503 because bodies in flight were at their bound' })
      },
      { description: 'request bodies in flight (docs/access.md, "Bodies")' }
    )
  ),
  process: Type.Object({
    rss_mb: Type.Integer(),
    heap_used_mb: Type.Integer(),
    heap_total_mb: Type.Integer({ description: 'V8 heap committed, MB (kept resident after a collection)' }),
    external_mb: Type.Integer({ description: 'ArrayBuffers and other memory outside the V8 heap held by JS, MB' }),
    event_loop_delay_ms: Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() })
  }),
  ingest: Type.Object({
    queued: Type.Integer(),
    written: Type.Integer(),
    failed: Type.Integer(),
    batches: Type.Integer(),
    retries: Type.Integer(),
    disk_full_retries: Type.Integer({
      description: 'tries refused because the data directory disk is full (the batch is held and tried again)'
    }),
    waiting_for_disk: Type.Boolean({ description: 'a batch is held until the data directory disk has room' }),
    journal_failed: Type.Integer({
      description:
        'batches set aside in DATA_DIR/journal/failed (failed for good, never replayed by themselves: docs/deployment.md)'
    }),
    repairs: Type.Object(
      {
        pending: Type.Integer({ description: 'time ranges whose views wait for a repair from the raw rows' }),
        repaired: Type.Integer({ description: 'ranges repaired since start' }),
        buckets: Type.Integer({ description: 'view buckets (candles) completed by repairs' }),
        surplus: Type.Integer({ description: 'view buckets holding more than their raw rows (left as they are)' }),
        errors: Type.Integer({ description: 'repair runs that failed (kept and tried again)' })
      },
      { description: 'views rebuilt from raw rows after a partial insert (a full disk, a crash): docs/deployment.md' }
    ),
    queue_bound_rows: Type.Integer({ description: 'INGEST_QUEUE_ROWS: rows one table may queue before sources wait' }),
    tables: Type.Record(
      Type.String(),
      Type.Object({
        queued: Type.Integer(),
        queued_max: Type.Integer({ description: 'most rows ever queued at once' }),
        written: Type.Integer(),
        failed: Type.Integer()
      }),
      { description: 'per raw table' }
    )
  })
})
