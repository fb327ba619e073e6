/**
 * @module
 * `GET /v1/health` (no key): status, version, store kind, per-source status and ingest counters
 * (DESIGN.md runtime contract). `degraded` when the store probe fails, a configured source is not
 * connected (unless it has finished: `phase: "done"`), or any ingest row has failed.
 */
import { Type } from '@sinclair/typebox'
import { json, type Route } from '../http/types.js'
import type { ServerContext } from '../context.js'

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
  'rest_errors',
  'rate_limited'
] as const

const HEALTH_RESPONSE = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  version: Type.String(),
  uptime_s: Type.Integer(),
  store: Type.Object({ kind: Type.Union([Type.Literal('chdb'), Type.Literal('clickhouse')]), ok: Type.Boolean() }),
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
      ...Object.fromEntries(VENUE_COUNTERS.map((k) => [k, Type.Optional(Type.Integer())]))
    })
  ),
  live: Type.Object({ whale_window_rows: Type.Integer(), whale_window_dropped: Type.Integer() }),
  stream: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description:
        'push stream: connections, subscriptions, channels, updates, messages (frames delivered), dropped_frames, slow_consumer_disconnects, connection_limit_closes, rejected_upgrades, client_errors'
    })
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
  process: Type.Object({
    rss_mb: Type.Integer(),
    heap_used_mb: Type.Integer(),
    event_loop_delay_ms: Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() })
  }),
  ingest: Type.Object({
    queued: Type.Integer(),
    written: Type.Integer(),
    failed: Type.Integer(),
    batches: Type.Integer(),
    retries: Type.Integer()
  })
})

export function healthRoutes(ctx: ServerContext): Route[] {
  const started = Date.now()
  return [
    {
      method: 'GET',
      path: '/v1/health',
      access: 'none',
      summary: 'Service health: store, sources (synthetic or not), ingest counters, process figures',
      tags: ['service'],
      response: HEALTH_RESPONSE,
      handler: () => {
        const totals = ctx.pipeline.totals()
        const sources = ctx.sources.map((s) => s.status())
        // a source that finished its work (a replay at the end of its recording) is not connected, and not a fault
        const down = sources.some((s) => !s.connected && s.phase !== 'done')
        const degraded = !ctx.storeProbe.ok || totals.failed > 0 || down
        return json(200, {
          status: degraded ? 'degraded' : 'ok',
          version: ctx.version,
          uptime_s: Math.floor((Date.now() - started) / 1000),
          store: { kind: ctx.store.kind, ok: ctx.storeProbe.ok },
          sources,
          process: ctx.processMonitor.stats(),
          // the in-memory whale window is bounded: rows it had to drop (still in the store) are counted
          live: { whale_window_rows: ctx.live.whales.size, whale_window_dropped: ctx.live.whales.dropped },
          ...(ctx.stream && { stream: ctx.stream.stats() }),
          exports: ctx.exports.stats(),
          ingest: {
            queued: totals.queued,
            written: totals.written,
            failed: totals.failed,
            batches: totals.batches,
            retries: totals.retries
          }
        })
      }
    }
  ]
}
