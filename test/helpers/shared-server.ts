/**
 * The shared test server of the `shared-server` Vitest project (test/setup/shared-server.ts): its base URL
 * and port, keys made through its admin API, and what a file would do in-process with its own server
 * (rebuild the live state, read its store) through the control channel (test/setup/shared-server-control.ts).
 * A file using it must be listed in SHARED_SERVER_FILES (vitest.config.ts); elsewhere `sharedServer()` throws
 * saying so.
 */
import { inject } from 'vitest'
import type { PlanName } from '../../engine/access/plans.js'
import type { Params } from '../../engine/store/store.js'
import { jsonBody, TEST_ADMIN_TOKEN } from './server.js'

export interface SharedServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  readonly port: number
  /** Rebuilds the server's live state from its store, as a restart does; resolves once done. */
  readonly rebuild: () => Promise<void>
  /** Makes the history market list be read again on its next use, as after a bulk load. */
  readonly invalidateMarkets: () => Promise<void>
  /** Rows of a query against the server's store. */
  readonly query: <T>(sql: string, params?: Params) => Promise<T[]>
  /** A statement without result against the server's store; only ever on the file's own rows. */
  readonly command: (sql: string, params?: Params) => Promise<void>
}

async function control(base: string, path: string, body?: object): Promise<Response> {
  const res = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) })
  if (!res.ok) throw new Error(`shared server control ${path}: ${res.status} ${await res.text()}`)
  return res
}

export function sharedServer(): SharedServer {
  const base = inject('sharedServerBase')
  if (!base) throw new Error('no shared server: list this file in SHARED_SERVER_FILES (vitest.config.ts)')
  const ctl = inject('sharedServerControl')
  return {
    base,
    port: Number(new URL(base).port),
    rebuild: async () => void (await control(ctl, '/rebuild')),
    invalidateMarkets: async () => void (await control(ctl, '/markets/invalidate')),
    query: async <T>(sql: string, params?: Params) =>
      (await (await control(ctl, '/query', { sql, params })).json()) as T[],
    command: async (sql: string, params?: Params) => void (await control(ctl, '/command', { sql, params }))
  }
}

/** A new API key of `plan` made with `POST /v1/admin/keys`; throws with the server's answer unless 201. */
export async function createKey(base: string, plan: PlanName, name: string = plan): Promise<string> {
  const res = await fetch(`${base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan, name })
  })
  if (res.status !== 201) throw new Error(`create ${plan} key: ${res.status} ${await res.text()}`)
  return ((await jsonBody(res)) as { key: string }).key
}
