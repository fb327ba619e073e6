/**
 * @module
 * Outbound webhook settings (docs/webhooks.md, "Configuration"), the `WEBHOOK_*` variables, read once at start.
 */
import { ConfigError } from '../config/config-error.js'
import { Type } from '@sinclair/typebox'
import { EnvInt, EnvText, envValue, readEnv, type Env } from '../config/env.js'
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

/** The `WEBHOOK_*` variables. */
export const WEBHOOK_ENV = Type.Object({
  WEBHOOK_KEY: Type.Optional(
    EnvText({
      description: 'key that encrypts webhook signing keys at rest; unset: generated into DATA_DIR/webhook.key',
      accepted: '32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)',
      secret: true
    })
  ),
  WEBHOOK_ALLOW_PRIVATE: EnvText({
    description: 'CIDRs deliveries may reach despite the SSRF guard (tests and private deployments only)',
    accepted: 'a comma list of CIDRs',
    default: ''
  }),
  WEBHOOK_TIMEOUT_MS: EnvInt({
    description: "one delivery attempt's time limit, ms",
    default: 10_000,
    minimum: 100,
    maximum: 120_000
  }),
  WEBHOOK_DISABLE_AFTER_S: EnvInt({
    description: 'a webhook whose deliveries all failed this long is disabled, s',
    default: 86_400,
    minimum: 1,
    maximum: 90 * 86_400
  }),
  WEBHOOK_CONCURRENCY: EnvInt({
    description: 'attempts in flight at once, all receivers',
    default: 256,
    minimum: 1,
    maximum: 10_000
  }),
  WEBHOOK_RECEIVER_CONCURRENCY: EnvInt({
    description: 'attempts in flight per receiver origin',
    default: 16,
    minimum: 1,
    maximum: 1_000
  }),
  WEBHOOK_MAX_PENDING: EnvInt({
    description: 'deliveries waiting at once; more are stored as failed (queue_full)',
    default: 250_000,
    minimum: 1,
    maximum: 10_000_000
  }),
  WEBHOOK_MAX_PENDING_PER_WEBHOOK: EnvInt({
    description: 'deliveries waiting at once per webhook',
    default: 100_000,
    minimum: 1,
    maximum: 10_000_000
  }),
  WEBHOOK_RETRY_AFTER_MAX_S: EnvInt({
    description: "longest wait a 429's Retry-After can impose before a retry, s",
    default: 60,
    minimum: 1,
    maximum: 3_600
  }),
  WEBHOOK_RETRY_DELAYS_MS: Type.Optional(
    EnvText({
      description: 'the delays before retries 1, 2 and 3, ms (default 1000,4000,16000)',
      accepted: '3 comma-separated whole ms from 1 to 3600000, e.g. 1000,4000,16000'
    })
  )
})

/** Reads the webhook settings. Throws ConfigError naming the variable at fault. */
export function webhookConfig(env: Env): WebhookConfig {
  const e = readEnv(WEBHOOK_ENV, env)
  let key: Buffer | undefined
  let allowPrivate: string[]
  try {
    key = e.WEBHOOK_KEY === undefined ? undefined : parseWebhookKey(e.WEBHOOK_KEY)
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
  try {
    allowPrivate = parseCidrList(e.WEBHOOK_ALLOW_PRIVATE)
  } catch (err) {
    throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE must be a comma list of CIDRs: ${(err as Error).message}`)
  }
  return Object.freeze({
    key,
    allowPrivate: Object.freeze(allowPrivate),
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    disableAfterS: e.WEBHOOK_DISABLE_AFTER_S,
    concurrency: e.WEBHOOK_CONCURRENCY,
    receiverConcurrency: e.WEBHOOK_RECEIVER_CONCURRENCY,
    maxPending: e.WEBHOOK_MAX_PENDING,
    maxPendingPerWebhook: e.WEBHOOK_MAX_PENDING_PER_WEBHOOK,
    retryAfterMaxS: e.WEBHOOK_RETRY_AFTER_MAX_S,
    retryDelaysMs: retryDelays(env)
  })
}
