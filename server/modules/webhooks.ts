/**
 * @module
 * Outbound webhooks (docs/webhooks.md): registrations loaded when the module opens (a WEBHOOK_KEY that does
 * not open the stored signing keys stops the start), every signal event handed to the outbox (`key_id`
 * events only to that key's webhooks) and every live whale transfer at the high significance as a
 * `whale.transfer` event, deliveries left pending resumed under the supervisor. Its stop ends
 * the attempts in flight and stores their results.
 */
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { WebhookService } from '../../engine/webhooks/service.js'
import { WhaleTransferEvents } from '../../engine/whales/whale-transfer-events.js'
import type { Logger } from '../../engine/log.js'
import type { Config } from '../config.js'
import { webhookRoutes } from '../routes/webhooks.js'
import { UndiciTransport } from '../webhooks/undici-transport.js'
import type { Core } from './core.js'
import type { ServiceModule } from './service-module.js'
import type { Signals } from './signals.js'
import type { Storage } from './storage.js'

export interface Webhooks extends ServiceModule {
  readonly service: WebhookService
}

export async function openWebhooks(
  config: Config,
  log: Logger,
  storage: Storage,
  core: Core,
  signals: Signals
): Promise<Webhooks> {
  const service = await WebhookService.open({
    store: storage.store,
    config: config.webhooks,
    dataDir: config.dataDir,
    log: log.child({ mod: 'webhooks' }),
    transport: (policy) =>
      new UndiciTransport({
        policy,
        perReceiver: config.webhooks.receiverConcurrency,
        timeoutMs: config.webhooks.timeoutMs
      })
  })
  if (service.generatedKeyFile) log.warn({ file: service.generatedKeyFile }, 'generated the webhook key (WEBHOOK_KEY)')
  return {
    name: 'webhooks',
    service,
    health: () => ({ webhooks: { ...service.outbox.stats() } }),
    routes: () => webhookRoutes({ webhooks: service, known: screenerBases(core.live.screener) }),
    start: () => {
      service.subscribe(signals.service.bus)
      // whale transfers at or above the high significance, as `whale.transfer` events
      core.live.observe(new WhaleTransferEvents(service.outbox.onEvent))
      core.supervisor.run('webhook-outbox', async () => {
        const resumed = await service.resume()
        if (resumed > 0) log.info({ deliveries: resumed }, 'webhook deliveries resumed')
      })
    },
    stop: (deadline) => service.stop(deadline)
  }
}
