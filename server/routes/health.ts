/**
 * @module
 * `GET /v1/health` (no key): status, version, store kind, per-source status and ingest counters
 * (DESIGN.md runtime contract). `degraded` when the store probe fails, a configured source is not
 * connected, or any ingest row has failed.
 */
import { json, type Route } from '../http/types.js'
import type { ServerContext } from '../context.js'

export function healthRoutes(ctx: ServerContext): Route[] {
  const started = Date.now()
  return [
    {
      method: 'GET',
      path: '/v1/health',
      handler: () => {
        const totals = ctx.pipeline.totals()
        const sources = ctx.sources.map((s) => s.status())
        const degraded = !ctx.storeProbe.ok || totals.failed > 0 || sources.some((s) => !s.connected)
        return json(200, {
          status: degraded ? 'degraded' : 'ok',
          version: ctx.version,
          uptime_s: Math.floor((Date.now() - started) / 1000),
          store: { kind: ctx.store.kind, ok: ctx.storeProbe.ok },
          sources,
          process: ctx.processMonitor.stats(),
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
