/**
 * @module
 * Wires the accounts (docs/accounts.md) into the server: loads accounts and sessions before the server
 * listens, reloads them with the keys' period (several servers on one ClickHouse converge), and gives
 * server/start.ts the session gate (AccessControl's stand-in for a key), the routes and the health counters.
 */
import { KEY_RELOAD_MS } from '../../engine/access/key-registry.js'
import { AccountService } from '../../engine/accounts/account-service.js'
import { hashCounters } from '../../engine/accounts/password.js'
import { SessionGate } from '../accounts/session-gate.js'
import type { ServerContext } from '../context.js'
import type { Route } from '../http/types.js'
import { accountRoutes } from '../routes/account/index.js'

export interface Accounts {
  readonly gate: SessionGate
  /** the `/v1/account/*` routes */
  routes(): Route[]
}

export async function openAccounts(ctx: ServerContext): Promise<Accounts> {
  const log = ctx.log.child({ mod: 'accounts' })
  const service = new AccountService({
    store: ctx.store,
    keys: ctx.keys,
    signup: ctx.config.signup,
    log,
    onError: (err) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'session write failed')
  })
  await service.load()
  ctx.supervisor.every('accounts-reload', KEY_RELOAD_MS, () => service.load())
  const gate = new SessionGate(service, ctx.config.trustedProxyHops)
  ctx.accounts = { counters: () => ({ ...service.counters(), ...gate.counters, ...hashCounters }) }
  return { gate, routes: () => accountRoutes(gate, ctx.quota, () => ctx.alerts?.settings) }
}
