/**
 * The shared test server of the `shared-server` Vitest project (test/setup/shared-server.ts): its base URL
 * and port, and keys made through its admin API. A file using it must be listed in SHARED_SERVER_FILES
 * (vitest.config.ts); elsewhere `sharedServer()` throws saying so.
 */
import { inject } from 'vitest'
import type { PlanName } from '../../engine/access/plans.js'
import { jsonBody, TEST_ADMIN_TOKEN } from './server.js'

export interface SharedServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  readonly port: number
}

export function sharedServer(): SharedServer {
  const base = inject('sharedServerBase')
  if (!base) throw new Error('no shared server: list this file in SHARED_SERVER_FILES (vitest.config.ts)')
  return { base, port: Number(new URL(base).port) }
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
