/**
 * The webhook API in process over a real chDB store: the real `App` (routing, access control, plan gate,
 * body validation, error envelope) over `webhookRoutes`, a `WebhookService` on a fresh data directory with
 * the schema migrated, and the real undici transport trusting a test CA (passed to the agent, since
 * NODE_EXTRA_CA_CERTS is read only at process start). DNS can be stubbed (`hosts`), so names can be made to
 * resolve to loopback without any network.
 */
import { IpThrottle } from '../../engine/access/ip-throttle.js'
import { KeyRegistry } from '../../engine/access/key-registry.js'
import type { PlanName } from '../../engine/access/plans.js'
import { QuotaCounter } from '../../engine/access/quota.js'
import { loadConfig, type WebhookConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { Store } from '../../engine/store/store.js'
import type { KnownBases } from '../../engine/symbols/resolve.js'
import type { Clock } from '../../engine/webhooks/scheduler.js'
import { WebhookService } from '../../engine/webhooks/service.js'
import type { WebhookTransport } from '../../engine/webhooks/transport.js'
import type { Resolve } from '../../engine/webhooks/url-check.js'
import { AccessControl } from '../../server/access/access-control.js'
import { App } from '../../server/app.js'
import type { HttpResponse } from '../../server/http/types.js'
import { webhookRoutes } from '../../server/routes/webhooks.js'
import { UndiciTransport } from '../../server/webhooks/undici-transport.js'
import { tmpDir } from './tmp-dir.js'

export const ADMIN = 'test-admin-token-webhooks-0123'

export interface WebhookAppOptions {
  /** WEBHOOK_* variables (e.g. WEBHOOK_ALLOW_PRIVATE, WEBHOOK_TIMEOUT_MS) */
  readonly env?: Record<string, string>
  /** trusted CA PEMs for deliveries (replaces Node's store) */
  readonly ca?: readonly string[]
  /** stub DNS: name -> addresses; other names do not resolve */
  readonly hosts?: Readonly<Record<string, readonly string[]>>
  readonly known?: KnownBases | null
  readonly clock?: Clock
  /** replaces the undici transport */
  readonly transport?: WebhookTransport
  /** reuse a data directory (restart) */
  readonly dataDir?: string
}

export interface WebhookApp {
  readonly app: App
  readonly service: WebhookService
  readonly store: Store
  readonly config: WebhookConfig
  readonly dataDir: string
  key(plan: PlanName): Promise<{ key: string; id: string }>
  call(method: string, target: string, opts?: { key?: string; body?: unknown; admin?: boolean }): Promise<Res>
  /** stops the service and closes the store (the data directory stays unless `cleanup`) */
  close(cleanup?: boolean): Promise<void>
}

export interface Res {
  readonly status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any
  readonly raw: HttpResponse
}

export function stubResolve(hosts: Readonly<Record<string, readonly string[]>>): Resolve {
  return async (name) => {
    const list = hosts[name]
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
}

export async function webhookApp(o: WebhookAppOptions = {}): Promise<WebhookApp> {
  const tmp = o.dataDir ? null : tmpDir('tw-webhooks-')
  const dataDir = o.dataDir ?? tmp!.dir
  const config = loadConfig({ DATA_DIR: dataDir, SOURCES: 'none', ...(o.env ?? {}) }).webhooks
  const store = new ChdbStore({ path: dataDir, poolSize: 2 })
  await migrate(store, {})
  const resolve = o.hosts ? stubResolve(o.hosts) : undefined
  const service = await WebhookService.open({
    store,
    config,
    dataDir,
    log: silentLogger(),
    transport: (policy) =>
      o.transport ??
      new UndiciTransport({
        policy,
        perReceiver: config.receiverConcurrency,
        timeoutMs: config.timeoutMs,
        ...(resolve ? { resolve } : {}),
        ...(o.ca ? { ca: o.ca } : {})
      }),
    ...(resolve ? { resolve } : {}),
    ...(o.clock ? { clock: o.clock } : {})
  }).catch(async (err: unknown) => {
    await store.close()
    throw err
  })
  await service.resume()
  const keyStore = new (await import('./fake-store.js')).FakeStore()
  const registry = new KeyRegistry(keyStore)
  const access = new AccessControl({
    registry,
    quota: new QuotaCounter(keyStore),
    throttle: new IpThrottle(100_000),
    adminToken: ADMIN,
    trustedProxyHops: 0
  })
  const app = new App(webhookRoutes({ webhooks: service, known: o.known ?? null }), silentLogger(), access)
  return {
    app,
    service,
    store,
    config,
    dataDir,
    key: async (plan) => {
      const { record, key } = await registry.create(plan, `test-${plan}`)
      return { key, id: record.id }
    },
    call: async (method, target, c = {}) => {
      const url = new URL(target, 'http://in-process')
      const headers: Record<string, string> = {}
      if (c.key) headers['x-api-key'] = c.key
      if (c.admin) headers['authorization'] = `Bearer ${ADMIN}`
      const raw = await app.handle({
        method,
        path: url.pathname,
        query: url.searchParams,
        headers,
        body: c.body === undefined ? null : Buffer.from(typeof c.body === 'string' ? c.body : JSON.stringify(c.body)),
        ip: '127.0.0.1'
      })
      const text = typeof raw.body === 'string' || Buffer.isBuffer(raw.body) ? raw.body.toString() : ''
      return { status: raw.status, body: text ? JSON.parse(text) : null, raw }
    },
    close: async (cleanup = true) => {
      await service.stop(Date.now() + 5_000)
      await store.close()
      if (cleanup) tmp?.cleanup()
    }
  }
}
