/**
 * Global setup of the `shared-server` Vitest project (vitest.config.ts): one real server with one migrated
 * chDB store, started in Vitest's main process before the project's files run and stopped after them. The
 * files read its base URL with `sharedServer()` (test/helpers/shared-server.ts) instead of booting a server
 * and a store each (migrations and warm-up take seconds per boot). They share its store, so each writes
 * only under its own symbols and creates its own keys. What a file would do in-process (rebuild the live
 * state, read the store) goes through the control channel (test/setup/shared-server-control.ts); tests that
 * need the process itself (a kill or restart, its data dir, settings of their own) keep their own server.
 */
import type { TestProject } from 'vitest/node'
import { startTestServer } from '../helpers/server.js'
import { startControl } from './shared-server-control.js'

/**
 * Settings every shared file can live with: a public rate limit no file reaches (all files call from
 * 127.0.0.1, one bucket), and webhooks allowed to loopback receivers.
 */
export const SHARED_SERVER_ENV: Readonly<Record<string, string>> = {
  PUBLIC_RATE_PER_MIN: '100000',
  WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8'
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const srv = await startTestServer({ ...SHARED_SERVER_ENV })
  const control = await startControl(srv.running)
  project.provide('sharedServerBase', srv.base)
  project.provide('sharedServerControl', control.base)
  return async () => {
    await control.stop()
    await srv.stop()
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the shared server; empty outside the shared-server project */
    sharedServerBase: string
    /** `http://127.0.0.1:<port>` of its control channel (test/setup/shared-server-control.ts) */
    sharedServerControl: string
  }
}
