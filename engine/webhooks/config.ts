/**
 * @module
 * Outbound webhook settings (docs/webhooks.md, "Configuration"), the `WEBHOOK_*` variables, read once at start.
 */
import { ConfigError } from '../config/config-error.js'
import { envInt, envValue, type Env } from '../config/env.js'
import { parseCidrList } from './address-policy.js'
import { RETRY_DELAYS_MS } from './retry-schedule.js'
import { parseWebhookKey } from './secret-box.js'

export interface WebhookConfig {
  /** `WEBHOOK_KEY`: encrypts signing keys at rest; unset: generated into DATA_DIR/webhook.key (0600) */
  readonly key: Buffer | undefined
  /** `WEBHOOK_ALLOW_PRIVATE`: CIDRs deliveries may reach despite the SSRF guard (tests, private deployments). @default [] */
  readonly allowPrivate: readonly string[]
  /** `WEBHOOK_TIMEOUT_MS`: an attempt without an answer in this time failed (spec: 10 s). @default 10_000 */
  readonly timeoutMs: number
  /** `WEBHOOK_DISABLE_AFTER_S`: a webhook whose deliveries all failed this long is disabled. @default 86_400 */
  readonly disableAfterS: number
  /** `WEBHOOK_CONCURRENCY`: attempts in flight at once, all receivers. @default 256 */
  readonly concurrency: number
  /** `WEBHOOK_RECEIVER_CONCURRENCY`: attempts (and connections) in flight per receiver origin. @default 16 */
  readonly receiverConcurrency: number
  /** `WEBHOOK_MAX_PENDING`: deliveries waiting at once; more are stored as failed (queue_full). @default 250_000 */
  readonly maxPending: number
  /** `WEBHOOK_MAX_PENDING_PER_WEBHOOK`: the same bound per webhook. @default 100_000 */
  readonly maxPendingPerWebhook: number
  /** `WEBHOOK_RETRY_AFTER_MAX_S`: longest wait a 429's Retry-After can impose before a retry. @default 60 */
  readonly retryAfterMaxS: number
  /**
   * `WEBHOOK_RETRY_DELAYS_MS`: the three delays before retries 1, 2 and 3, ms, each jittered ±20% (a comma
   * list; tests shorten it so a failing receiver ends its round in seconds). @default [1_000, 4_000, 16_000]
   */
  readonly retryDelaysMs: readonly number[]
}

/** Longest delay `WEBHOOK_RETRY_DELAYS_MS` may set, ms (one hour). */
const RETRY_DELAY_MAX_MS = 3_600_000

/** Reads `WEBHOOK_RETRY_DELAYS_MS`: exactly as many whole ms as RETRY_DELAYS_MS has, each 1 to one hour. */
function retryDelays(env: Env): readonly number[] {
  const raw = envValue(env, 'WEBHOOK_RETRY_DELAYS_MS')
  if (raw === undefined) return RETRY_DELAYS_MS
  const parts = raw.split(',').map((p) => p.trim())
  const delays = parts.map(Number)
  if (
    parts.length !== RETRY_DELAYS_MS.length ||
    parts.some((p) => !/^\d+$/.test(p)) ||
    delays.some((d) => d < 1 || d > RETRY_DELAY_MAX_MS)
  ) {
    throw new ConfigError(
      `WEBHOOK_RETRY_DELAYS_MS must be ${RETRY_DELAYS_MS.length} comma-separated whole ms from 1 to ${RETRY_DELAY_MAX_MS}, e.g. ${RETRY_DELAYS_MS.join(',')}; got "${raw}"`
    )
  }
  return Object.freeze(delays)
}

/** Reads the webhook settings. Throws ConfigError naming the variable at fault. */
export function webhookConfig(env: Env): WebhookConfig {
  const rawKey = envValue(env, 'WEBHOOK_KEY')
  let key: Buffer | undefined
  let allowPrivate: string[]
  try {
    key = rawKey === undefined ? undefined : parseWebhookKey(rawKey)
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
  try {
    allowPrivate = parseCidrList(env['WEBHOOK_ALLOW_PRIVATE'] ?? '')
  } catch (err) {
    throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE must be a comma list of CIDRs: ${(err as Error).message}`)
  }
  return Object.freeze({
    key,
    allowPrivate: Object.freeze(allowPrivate),
    timeoutMs: envInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    disableAfterS: envInt(env, 'WEBHOOK_DISABLE_AFTER_S', 86_400, 1, 90 * 86_400),
    concurrency: envInt(env, 'WEBHOOK_CONCURRENCY', 256, 1, 10_000),
    receiverConcurrency: envInt(env, 'WEBHOOK_RECEIVER_CONCURRENCY', 16, 1, 1_000),
    maxPending: envInt(env, 'WEBHOOK_MAX_PENDING', 250_000, 1, 10_000_000),
    maxPendingPerWebhook: envInt(env, 'WEBHOOK_MAX_PENDING_PER_WEBHOOK', 100_000, 1, 10_000_000),
    retryAfterMaxS: envInt(env, 'WEBHOOK_RETRY_AFTER_MAX_S', 60, 1, 3_600),
    retryDelaysMs: retryDelays(env)
  })
}
