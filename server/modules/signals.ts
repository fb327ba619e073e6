/**
 * @module
 * Signals (docs/signals.md): the bus, the engine and the event writer. Opened before the stream hub (its
 * `signals:` channels read the bus), the alerts (forwarded alerts are published on it) and the webhooks
 * (every event goes to the outbox). Its start makes the engine observe the live state and evaluate once the
 * service is ready, after reading back the stored events; the writer stores every published event.
 */
import { SignalService } from '../../engine/signals/signal-service.js'
import type { Readiness } from '../readiness.js'
import { signalRoutes } from '../routes/signals.js'
import type { Core } from './core.js'
import type { ServiceModule } from './service-module.js'
import type { Storage } from './storage.js'

export interface Signals extends ServiceModule {
  readonly service: SignalService
}

export function openSignals(storage: Storage, core: Core, readiness: () => Readiness, clock?: () => number): Signals {
  const service = new SignalService(core.live, storage.store, clock === undefined ? {} : { now: clock })
  return {
    name: 'signals',
    service,
    health: () => ({ signals: service.stats() }),
    routes: (ctx) => signalRoutes(ctx),
    start: () => service.start(core.supervisor, () => readiness().ready)
  }
}
