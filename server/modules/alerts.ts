/**
 * @module
 * Inbound alerts (docs/alerts.md): the sources of `ALERT_SOURCES` served at POST /v1/{name}/webhook, their
 * secrets and settings loaded when the module opens and reloaded like keys. Forwarded alerts
 * (`forward: true`) are SIGNAL events of their key on the signal bus. The sequence checks per strategy are
 * loaded at open, written every FLUSH_MS and at stop; silent strategies are looked for at the same pace and
 * reported as `alert.silent` events through the webhook outbox.
 */
import { KEY_RELOAD_MS } from '../../engine/access/key-registry.js'
import { AlertService } from '../../engine/alerts/alert-service.js'
import { AlertSettingsRegistry } from '../../engine/alerts/alert-settings.js'
import { SenderAllowList } from '../../engine/alerts/sender-allow-list.js'
import { FLUSH_MS, StrategyStatuses } from '../../engine/alerts/strategy-status.js'
import { confirmAnswersOf } from '../../engine/live/confirm-answers.js'
import type { Logger } from '../../engine/log.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import type { Config } from '../config.js'
import { alertRoutes } from '../routes/alerts.js'
import type { Core } from './core.js'
import type { ServiceModule } from './service-module.js'
import type { Signals } from './signals.js'
import type { Storage } from './storage.js'
import type { Webhooks } from './webhooks.js'

export interface Alerts extends ServiceModule {
  readonly service: AlertService
}

export async function openAlerts(
  config: Config,
  log: Logger,
  storage: Storage,
  core: Core,
  signals: Signals,
  webhooks: Webhooks
): Promise<Alerts> {
  const settings = new AlertSettingsRegistry(storage.store)
  await settings.load()
  const strategies = new StrategyStatuses(storage.store)
  await strategies.load()
  const service = new AlertService({
    sources: config.alertSources,
    allowList: new SenderAllowList(config.alertAllowedIps),
    settings,
    keyOf: (id) => core.keys.get(id),
    quota: core.quota,
    answers: confirmAnswersOf(core.live),
    known: screenerBases(core.live.screener),
    bus: signals.service.bus,
    strategies,
    emit: webhooks.service.outbox.onEvent,
    log: log.child({ mod: 'alerts' })
  })
  return {
    name: 'alerts',
    service,
    health: () => ({ alerts: { ...service.counters } }),
    routes: (ctx) => alertRoutes(ctx, service),
    start: () => {
      core.supervisor.every('alert-settings-reload', KEY_RELOAD_MS, () => settings.load())
      core.supervisor.every('alert-sequence', FLUSH_MS, () => {
        service.checkSilence()
        return strategies.flush()
      })
    },
    // a store that is down at stop loses at most the last FLUSH_MS of sequence counts (logged)
    stop: () =>
      strategies
        .flush()
        .catch((err: unknown) => log.warn({ err: String(err) }, 'alert sequence counts not written at stop'))
  }
}
