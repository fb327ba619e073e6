/**
 * @module
 * Inbound alerts (`POST /v1/{alert_source}/webhook`, docs/alerts.md): an alert from a charting platform
 * runs through the confirmation model under the API key its secret names, and answers the confirmation
 * (both shapes) with an alert id. In order: the source (404), the sender allow-list (403), a JSON object
 * body (400), the secret (401, one answer for a missing and a wrong one), the fields (400 naming one), a
 * duplicate within the window (the first answer, `duplicate: true`, not counted), the symbol (400), the
 * plan's symbols (403), the key's daily quota (429), then the answer, forwarded as a SIGNAL event to the
 * key's webhooks when the key asked for it. Counting follows docs/access.md: once the secret holds, a 400
 * counts, refusals (403, 429) do not, and an alert whose answer failed gives its count back. Each answered
 * alert is judged against its strategy's sequence (engine/alerts/strategy-status.ts); `checkSilence` emits
 * `alert.silent` for strategies that stopped sending.
 */
import crypto from 'node:crypto'
import { PLANS, type Plan } from '../access/plans.js'
import type { QuotaCounter } from '../access/quota.js'
import { secondsToUtcMidnight } from '../access/utc-day.js'
import type { ConfirmAnswers, ConfirmAnswer } from '../live/confirm-answers.js'
import { ApiError } from '../errors.js'
import type { Logger } from '../log.js'
import type { SignalBus } from '../signals/signal-event.js'
import { resolveBase, type KnownBases } from '../symbols/resolve.js'
import { parseAlertJson, readAlertFields, type AlertFields } from './alert-body.js'
import { DuplicateWindow } from './alert-dedup.js'
import type { AlertSettingsRegistry } from './alert-settings.js'
import type { SenderAllowList } from './sender-allow-list.js'
import type { KeyRecord } from '../access/key-registry.js'
import { ALERT_SILENT, type AlertSilentPayload } from '../../catalog/webhook-events.js'
import type { WebhookEvent } from '../webhooks/event.js'
import type { SeqValue } from './alert-sequence.js'
import type { SequenceVerdict, StrategyStatuses } from './strategy-status.js'

/** The API key behind an alert secret, by its public id (KeyRegistry.get: revoked keys are gone at once). */
export type KeyLookup = (id: string) => KeyRecord | undefined

/** The source every deployment serves. */
export const TRADINGVIEW_SOURCE = 'tradingview'
/**
 * Longest an alert waits for its confirmation, ms, before answering 503: TradingView cancels a request
 * after 3 s. A cached answer is immediate; a miss reads the funding history (milliseconds unless the store
 * is down).
 */
export const ALERT_DEADLINE_MS = 2_000

export interface AlertServiceOptions {
  /** served sources: `tradingview` and ALERT_SOURCES */
  readonly sources: readonly string[]
  readonly allowList: SenderAllowList
  readonly settings: AlertSettingsRegistry
  readonly keyOf: KeyLookup
  readonly quota: QuotaCounter
  readonly answers: ConfirmAnswers
  /** bases the symbol resolves against (the live screener's) */
  readonly known: KnownBases
  /** where forwarded alerts are published (settable later: `bus`); null: nothing is forwarded */
  readonly bus?: SignalBus | null
  /** the sequence checks per key, strategy and symbol */
  readonly strategies: StrategyStatuses
  /** where `alert.silent` events go (the webhook outbox); null: silences are recorded, not delivered */
  readonly emit?: ((e: WebhookEvent) => void) | null
  readonly log: Logger
  readonly now?: () => number
}

/** An answered alert, as remembered for its duplicates. */
interface Answered {
  readonly alertId: string
  /** the answer's JSON with `"duplicate":false`, and with `true` for repeats */
  readonly first: string
  readonly repeat: string
}

export interface AlertOutcome {
  readonly body: string
  readonly alertId: string
  readonly duplicate: boolean
  /** the key's daily quota after this alert (RateLimit headers); null for an unlimited plan */
  readonly quota: { readonly limit: number; readonly remaining: number; readonly resetSeconds: number } | null
}

export interface AlertCounters {
  accepted: number
  duplicates: number
  forwarded: number
  unauthorized: number
  /** sender addresses refused by ALERT_ALLOWED_IPS */
  refused_senders: number
  /** `alert.silent` events emitted */
  silences: number
}

const unauthorized = (): ApiError =>
  new ApiError('unauthorized', 'a valid alert secret is required in the secret field of the body', {
    param: 'secret'
  })

const newAlertId = (): string => `alert_${crypto.randomBytes(12).toString('base64url')}`

export class AlertService {
  readonly sources: ReadonlySet<string>
  /** ALERT_ALLOWED_IPS restricts the senders (callers then pass the client address) */
  readonly restricted: boolean
  readonly window = new DuplicateWindow<Answered | Promise<Answered>>()
  readonly counters: AlertCounters = {
    accepted: 0,
    duplicates: 0,
    forwarded: 0,
    unauthorized: 0,
    refused_senders: 0,
    silences: 0
  }
  readonly settings: AlertSettingsRegistry
  readonly strategies: StrategyStatuses
  /** the bus forwarded alerts are published on: the server's signal bus; null until wired (nothing forwarded) */
  bus: SignalBus | null
  private readonly now: () => number

  constructor(private readonly o: AlertServiceOptions) {
    this.settings = o.settings
    this.strategies = o.strategies
    this.bus = o.bus ?? null
    this.sources = new Set(o.sources)
    this.restricted = o.allowList.restricted
    this.now = o.now ?? Date.now
  }

  /**
   * Handles one alert from `source` sent by `ip` (the client address, proxies accounted for). Synchronous
   * when the confirmation is cached; throws (or rejects with) an ApiError for every refusal.
   */
  receive(source: string, body: Buffer | null, ip: string): AlertOutcome | Promise<AlertOutcome> {
    if (!this.sources.has(source)) {
      throw new ApiError('not_found', `no alert source '${source}'; sources: ${[...this.sources].join(', ')}`)
    }
    if (!this.o.allowList.allows(ip)) {
      this.counters.refused_senders++
      throw new ApiError('forbidden', `alerts are not accepted from ${ip} (ALERT_ALLOWED_IPS)`)
    }
    const json = parseAlertJson(body)
    const secret = json['secret']
    const keyId = typeof secret === 'string' ? this.o.settings.authenticate(secret) : null
    const key = keyId === null ? undefined : this.o.keyOf(keyId)
    if (!key || key.revokedAt !== null) {
      this.counters.unauthorized++
      throw unauthorized()
    }
    const plan = PLANS[key.plan]
    let fields: AlertFields
    try {
      fields = readAlertFields(json)
    } catch (err) {
      throw this.counted(key, plan, err)
    }
    // what makes two alerts the same (docs/alerts.md, "Duplicates"); JSON keeps the fields apart
    const dedupKey = JSON.stringify([
      key.id,
      source,
      fields.symbol.toUpperCase(),
      fields.direction,
      fields.timeframe,
      fields.strategy,
      fields.price,
      fields.alertId,
      fields.seq?.value ?? null,
      fields.barTime
    ])
    const now = this.now()
    const seen = this.window.get(dedupKey, now)
    if (seen !== undefined) {
      this.counters.duplicates++
      return seen instanceof Promise ? seen.then((a) => this.repeat(a, key, plan)) : this.repeat(seen, key, plan)
    }
    let base: string
    try {
      base = resolveBase(fields.symbol, this.o.known, 'symbol')
      if (fields.tickerAlso !== null) sameBase(base, resolveBase(fields.tickerAlso, this.o.known, 'ticker'), fields)
    } catch (err) {
      throw this.counted(key, plan, err)
    }
    checkPlanSymbol(plan, base)
    const quota = this.take(key, plan)
    const alertId = newAlertId()
    const answer = this.o.answers.get(base, fields.direction)
    const build = (a: ConfirmAnswer): Answered => this.answered(alertId, source, key, plan, fields, a, now)
    if (!(answer instanceof Promise)) {
      const done = build(answer)
      this.window.set(dedupKey, done, now)
      return { body: done.first, alertId, duplicate: false, quota }
    }
    const pending = withDeadline(answer).then(build)
    this.window.set(dedupKey, pending, now)
    return pending.then(
      (done) => {
        // the answer replaces its promise: later duplicates are served synchronously
        this.window.delete(dedupKey, pending)
        this.window.set(dedupKey, done, now)
        return { body: done.first, alertId, duplicate: false, quota }
      },
      (err: unknown) => {
        this.window.delete(dedupKey, pending)
        this.o.quota.refund(key.id)
        throw err
      }
    )
  }

  /** The answer of an accepted alert; forwards it as a SIGNAL when the key asked for it and its plan has webhooks. */
  private answered(
    alertId: string,
    source: string,
    key: KeyRecord,
    plan: Plan,
    fields: AlertFields,
    a: ConfirmAnswer,
    now: number
  ): Answered {
    const r = a.result
    const verdict = this.o.strategies.observe(
      {
        keyId: key.id,
        strategy: fields.strategy,
        symbol: r.symbol,
        timeframe: fields.timeframe,
        seq: fields.seq,
        barTime: fields.barTime
      },
      now
    )
    const bus = this.bus
    const forward = bus !== null && plan.features.has('webhooks') && this.o.settings.get(key.id).forward
    if (forward) {
      bus.publish({
        id: alertId,
        event: 'SIGNAL',
        ts: now,
        symbol: r.symbol,
        direction: r.direction,
        confidence: r.confirmation,
        composite: r.composite,
        action: r.action,
        source: `alert:${source}`,
        key_id: key.id
      })
      this.counters.forwarded++
    }
    this.counters.accepted++
    this.o.log.info(
      {
        alert_id: alertId,
        key_id: key.id,
        source,
        symbol: r.symbol,
        direction: r.direction,
        action: r.action,
        forwarded: forward
      },
      'alert'
    )
    const echo = JSON.stringify({
      symbol: fields.symbol,
      timeframe: fields.timeframe,
      strategy: fields.strategy,
      price: fields.price,
      alert_id: fields.alertId,
      seq: seqShown(fields.seq)
    })
    const head = `"source":${JSON.stringify(source)},"forwarded":${forward},"received_at":"${new Date(now).toISOString()}","alert":${echo},"sequence":${sequenceJson(verdict)},`
    const rest = a.body.slice(1)
    return {
      alertId,
      first: `{"alert_id":"${alertId}","duplicate":false,${head}${rest}`,
      repeat: `{"alert_id":"${alertId}","duplicate":true,${head}${rest}`
    }
  }

  /**
   * Declares silent the strategies whose last alert is older than their key's `silence_bars` bars, and emits
   * an `alert.silent` event for each (to that key's webhooks). Returns how many went silent.
   */
  checkSilence(now: number = this.now()): number {
    const silent = this.o.strategies.silenced(now, (keyId) => this.o.settings.get(keyId).silenceBars)
    for (const s of silent) {
      const payload: AlertSilentPayload = {
        symbol: s.symbol,
        strategy: s.strategy,
        timeframe: s.timeframe ?? '',
        last_alert_at: new Date(s.lastReceivedAt).toISOString(),
        silence_bars: this.o.settings.get(s.keyId).silenceBars
      }
      this.o.emit?.({
        id: `alert-silent:${s.keyId}:${JSON.stringify([s.strategy, s.symbol])}:${s.silentSince}`,
        type: ALERT_SILENT.name,
        ts: now,
        payload,
        key_id: s.keyId
      })
      this.counters.silences++
    }
    return silent.length
  }

  private repeat(a: Answered, key: KeyRecord, plan: Plan): AlertOutcome {
    const limit = plan.callsPerDay
    const quota =
      limit === null
        ? null
        : {
            limit,
            remaining: Math.max(0, limit - this.o.quota.used(key.id)),
            resetSeconds: secondsToUtcMidnight(this.now())
          }
    return { body: a.repeat, alertId: a.alertId, duplicate: true, quota }
  }

  /** Counts one call of the key, or 429 quota_exceeded when its day is used up (nothing counted). */
  private take(key: KeyRecord, plan: Plan): AlertOutcome['quota'] {
    const limit = plan.callsPerDay
    const d = this.o.quota.take(key.id, limit)
    const resetSeconds = secondsToUtcMidnight(this.now())
    if (!d.ok) {
      const reset = String(resetSeconds)
      throw new ApiError(
        'quota_exceeded',
        `the ${plan.name} plan allows ${limit} calls a day (UTC); the quota resets in ${reset} s`,
        {
          headers: {
            'retry-after': reset,
            'ratelimit-limit': String(limit),
            'ratelimit-remaining': '0',
            'ratelimit-reset': reset
          }
        }
      )
    }
    return limit === null ? null : { limit, remaining: d.remaining ?? 0, resetSeconds }
  }

  /** A 400 found once the secret held counts like any keyed call's (docs/access.md); over quota it is a 429. */
  private counted(key: KeyRecord, plan: Plan, err: unknown): unknown {
    try {
      this.take(key, plan)
    } catch (quotaErr) {
      return quotaErr
    }
    return err
  }
}

/** 400 naming both when `symbol` and `ticker` resolve to different bases. */
function sameBase(base: string, tickerBase: string, fields: AlertFields): void {
  if (base === tickerBase) return
  throw new ApiError(
    'invalid_parameter',
    `ticker and symbol name different symbols (${JSON.stringify(fields.tickerAlso)} is ${tickerBase}, ${JSON.stringify(fields.symbol)} is ${base}); send one of them`,
    { param: 'ticker' }
  )
}

/** `seq` as echoed: the number, or the date in ISO 8601 UTC. */
const seqShown = (seq: SeqValue | null): number | string | null =>
  seq === null ? null : seq.kind === 'number' ? seq.value : new Date(seq.value).toISOString()

const sequenceJson = (v: SequenceVerdict): string =>
  `{"missing":${v.missing},"late":${v.late},"out_of_order":${v.outOfOrder}}`

/** 403 when the plan does not include the base (the message of AccessControl.checkSymbol). */
function checkPlanSymbol(plan: Plan, base: string): void {
  if (!plan.symbols || plan.symbols.includes(base)) return
  throw new ApiError(
    'forbidden',
    `${base} is not included in the ${plan.name} plan (it has ${plan.symbols.join(', ')}); the trader plan and higher include every symbol`,
    { param: 'symbol' }
  )
}

/** The answer, or 503 unavailable after ALERT_DEADLINE_MS (the computation goes on and fills the cache). */
function withDeadline(answer: Promise<ConfirmAnswer>): Promise<ConfirmAnswer> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError('unavailable', 'the confirmation took too long (the data store is slow); retry shortly', {
            headers: { 'retry-after': '5' }
          })
        ),
      ALERT_DEADLINE_MS
    )
  })
  return Promise.race([answer, late]).finally(() => clearTimeout(timer))
}
