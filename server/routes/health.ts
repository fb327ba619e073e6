/**
 * @module
 * `GET /v1/health` (no key): status, version, store kind, per-source status and ingest counters
 * (DESIGN.md runtime contract). `degraded` when the store probe fails, a configured source is not
 * connected (unless it has finished: `phase: "done"`), any ingest row has failed, a batch is held for a
 * full disk, or views wait for a repair after a partial insert.
 */
import { Type } from '@sinclair/typebox'
import { json, type Route } from '../http/types.js'
import type { ServerContext } from '../context.js'
import { livePath } from '../../engine/live/path-probe.js'
import { HEALTH_RESPONSE } from '../../schemas/api/health.js'

/**
 * The answer's sections in the order they are served. The modules' sections (ServiceModule.health:
 * accounts, alerts, webhooks, signals) take their place here; a section not listed comes last.
 */
const SECTION_ORDER: readonly string[] = [
  'status',
  'version',
  'uptime_s',
  'ready',
  'waiting_for',
  'synthetic',
  'loops',
  'store',
  'sources',
  'process',
  'live',
  'last_stop',
  'accounts',
  'alerts',
  'webhooks',
  'stream',
  'signals',
  'exports',
  'bodies',
  'ingest'
]

/** `body` with its sections in SECTION_ORDER, unlisted ones after in their own order. */
function inSectionOrder(body: Record<string, unknown>): Record<string, unknown> {
  const rank = (k: string): number => {
    const i = SECTION_ORDER.indexOf(k)
    return i === -1 ? SECTION_ORDER.length : i
  }
  return Object.fromEntries(Object.entries(body).sort(([a], [b]) => rank(a) - rank(b)))
}

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
        const ready = ctx.readiness.ready
        const down = ready && sources.some((s) => !s.connected && s.phase !== 'done')
        const loops = ctx.supervisor.status()
        const failing = loops.some((l) => l.state === 'backoff')
        const repairs = ctx.repairs?.counters ?? { pending: 0, repaired: 0, buckets: 0, surplus: 0, errors: 0 }
        const degraded =
          !ctx.storeProbe.ok || totals.failed > 0 || totals.waiting_for_disk || repairs.pending > 0 || down || failing
        const lastStop = ctx.lastStop?.()
        return json(
          200,
          inSectionOrder({
            status: degraded ? 'degraded' : 'ok',
            version: ctx.version,
            uptime_s: Math.floor((Date.now() - started) / 1000),
            ready,
            waiting_for: ctx.readiness.waitingFor(),
            synthetic: ctx.synthetic,
            loops,
            store: {
              kind: ctx.store.kind,
              ok: ctx.storeProbe.ok,
              ...(ctx.storeProbe.engineMemory && { engine_memory_mb: ctx.storeProbe.engineMemory })
            },
            sources,
            process: ctx.processMonitor.stats(),
            // the in-memory whale window is bounded: rows it had to drop (still in the store) are counted
            live: {
              whale_window_rows: ctx.live.whales.size,
              whale_window_dropped: ctx.live.whales.dropped,
              queued: ctx.live.queued,
              ...ctx.live.counters,
              ...(livePath.enabled && { path_ms: livePath.figures() })
            },
            ...(lastStop !== undefined && { last_stop: lastStop }),
            ...(ctx.stream && { stream: ctx.stream.stats() }),
            ...ctx.healthSections?.(),
            exports: ctx.exports.stats(),
            ...(ctx.bodies && { bodies: ctx.bodies.counters() }),
            ingest: {
              queued: totals.queued,
              written: totals.written,
              failed: totals.failed,
              batches: totals.batches,
              retries: totals.retries,
              disk_full_retries: totals.disk_full_retries,
              waiting_for_disk: totals.waiting_for_disk,
              journal_failed: ctx.journal?.failedEntries() ?? 0,
              repairs: { ...repairs },
              queue_bound_rows: ctx.config.queueRows,
              tables: Object.fromEntries(
                Object.entries(totals.tables).map(([t, c]) => [
                  t,
                  { queued: c.queued, queued_max: c.queued_max, written: c.written, failed: c.failed }
                ])
              )
            }
          })
        )
      }
    },
    {
      method: 'GET',
      path: '/v1/ready',
      access: 'none',
      summary: 'Readiness for load balancers and orchestrators: 200 once data can be served, 503 warming_up before',
      description:
        'Liveness is /v1/health (200 whenever the process answers). This answers 503 `warming_up` with Retry-After while the live state is built or the demo market backfills on a first start.',
      tags: ['service'],
      response: Type.Object({ ready: Type.Literal(true) }),
      handler: () => {
        ctx.readiness.check()
        return json(200, { ready: true })
      }
    }
  ]
}
