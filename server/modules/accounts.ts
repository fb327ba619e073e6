/**
 * @module
 * Accounts (docs/accounts.md): accounts and sessions loaded when the module opens (before the server
 * listens), reloaded with the keys' period (several servers on one ClickHouse converge); the session gate,
 * AccessControl's stand-in for a key; the `/v1/account/*` routes and the health counters.
 */
import { KEY_RELOAD_MS } from '../../engine/access/key-registry.js'
import { AccountService } from '../../engine/accounts/account-service.js'
import { hashCounters } from '../../engine/accounts/password.js'
import type { Logger } from '../../engine/log.js'
import { SessionGate } from '../accounts/session-gate.js'
import type { Config } from '../config.js'
import { accountRoutes } from '../routes/account/index.js'
import type { Alerts } from './alerts.js'
import type { Core } from './core.js'
import type { ServiceModule } from './service-module.js'
import type { Storage } from './storage.js'

export interface Accounts extends ServiceModule {
  readonly gate: SessionGate
  /** accounts, sessions and login throttling counters for /v1/health */
  counters(): Record<string, number>
}

export async function openAccounts(
  config: Config,
  logger: Logger,
  storage: Storage,
  core: Core,
  alerts: Alerts
): Promise<Accounts> {
  const log = logger.child({ mod: 'accounts' })
  const service = new AccountService({
    store: storage.store,
    keys: core.keys,
    signup: config.signup,
    log,
    onError: (err) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'session write failed')
  })
  await service.load()
  const gate = new SessionGate(service, config.trustedProxyHops)
  const counters = (): Record<string, number> => ({ ...service.counters(), ...gate.counters, ...hashCounters })
  return {
    name: 'accounts',
    gate,
    counters,
    health: () => ({ accounts: counters() }),
    routes: () => accountRoutes(gate, core.quota, () => alerts.service.settings),
    start: () => core.supervisor.every('accounts-reload', KEY_RELOAD_MS, () => service.load())
  }
}
