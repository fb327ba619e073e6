/**
 * @module
 * How events enter the outbox (outbox.ts): one delivery per matching webhook, journaled (pending, or failed
 * at once past the queue bounds) before it is scheduled; deliveries whose journal write fails are never
 * attempted (counted in `dropped_unstored`, logged). Bus events (`onEvent`) of one event-loop turn share
 * one journal write, so they wait in one batch scheduled when that write returns: one promise reaction per
 * turn, not one async call per event. `accept` is the same for one event, awaited by its caller.
 */
import type { Logger } from '../log.js'
import type { AttemptRunner } from './attempts.js'
import { deliveredEvent, newDelivery, type Delivery } from './delivery.js'
import { symbolOfPayload, webhookEventOf, type OutboxEvent } from './event.js'
import { matching } from './matching.js'
import type { DeliveryLedger } from './outbox-ledger.js'
import type { WebhookRegistry } from './registry.js'
import type { Clock } from './scheduler.js'

export class EventIntake {
  /** set by the outbox's stop: events are no longer taken */
  stopped = false
  /** the events of this turn journaled by `onEvent`, waiting for their shared journal write */
  private batch: EventBatch | null = null

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly registry: WebhookRegistry,
    private readonly runner: AttemptRunner,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** remembers a delivery id of this run (the outbox's resume skips those) */
    private readonly noteStartup: (id: string) => void
  ) {}

  /**
   * The bus listener: journals and schedules the deliveries of `e` (errors are logged, never thrown). The
   * events of one event-loop turn share one journal write, so their deliveries wait in one batch scheduled
   * when that write returns (one promise reaction per turn, not per event); the same as `accept` otherwise.
   */
  onEvent(e: OutboxEvent): void {
    let j: Journaled | null
    try {
      j = this.journal(e)
    } catch (err) {
      this.notStored(e, err)
      return
    }
    if (j === null || j.fresh.length === 0) return
    if (j.more !== null) {
      // its rows went to two journal writes (a chunk boundary): on its own
      this.settleJournaled(j).catch((err: unknown) => this.notStored(e, err))
      return
    }
    const batch = this.batch
    if (batch !== null && batch.write === j.stored) {
      batch.events.push(e)
      for (const d of j.fresh) batch.fresh.push(d)
      return
    }
    const next: EventBatch = { write: j.stored!, events: [e], fresh: j.fresh }
    this.batch = next
    next.write.then(
      () => {
        if (this.batch === next) this.batch = null
        for (const d of next.fresh) this.runner.schedule(d)
      },
      (err: unknown) => {
        if (this.batch === next) this.batch = null
        this.unstored(next.fresh)
        for (const ev of next.events) this.notStored(ev, err)
      }
    )
  }

  /** Journals the deliveries of `e` and schedules them; resolves with how many webhooks it matched once journaled. */
  async accept(e: OutboxEvent): Promise<number> {
    const j = this.journal(e)
    if (j === null) return 0
    await this.settleJournaled(j)
    return j.matched
  }

  /**
   * Counts `e` and journals one delivery per matching webhook (the queue bounds: those refused are journaled
   * as failed at once). Null when nothing matched or the outbox is stopped or full.
   */
  private journal(raw: OutboxEvent): Journaled | null {
    if (this.stopped) return null
    const w = webhookEventOf(raw)
    // `matches` takes active webhooks only
    const targets = matching(this.registry.all(), {
      type: w.type,
      symbol: symbolOfPayload(w.payload),
      key_id: w.key_id
    })
    if (targets.length === 0) return null
    const e = deliveredEvent(w)
    const c = this.ledger.counters
    c.events++
    if (this.ledger.writers.deliveries.full) {
      c.dropped_unstored += targets.length
      this.log.error(
        { event_id: e.id, deliveries: targets.length },
        'webhook outbox full (store behind): event dropped'
      )
      return null
    }
    const now = this.clock.now()
    const fresh: Delivery[] = []
    // the promise of each journal write (usually one write for every row of this turn)
    let stored: Promise<void> | null = null
    let more: Set<Promise<void>> | null = null
    for (const hook of targets) {
      const d = newDelivery(e, hook, this.ledger.originOf(hook.url), now)
      if (this.ledger.pending.has(d.id)) continue // the same event published twice
      this.noteStartup(d.id)
      c.deliveries++
      const refused = this.ledger.refusal(hook.id)
      if (refused !== null) this.ledger.fail(d, refused)
      else {
        // its row first: a payload JSON.stringify refuses (a BigInt, a cycle) throws here, nothing tracked
        const write = this.ledger.writeState(d)
        this.ledger.track(d)
        fresh.push(d)
        if (stored === null) stored = write
        else if (write !== stored) (more ??= new Set()).add(write)
      }
    }
    return { matched: targets.length, fresh, stored, more }
  }

  /** Waits for the journal writes of `j`, then schedules its deliveries (or, not durable, never attempts them). */
  private async settleJournaled(j: Journaled): Promise<void> {
    try {
      await (j.more === null ? j.stored : Promise.all([j.stored, ...j.more]))
    } catch (err) {
      // not durable, so never attempted: counted and logged (the caller logs the event)
      this.unstored(j.fresh)
      throw err
    }
    for (const d of j.fresh) this.runner.schedule(d)
  }

  /** Deliveries whose journal write failed: untracked and counted in dropped_unstored. */
  private unstored(fresh: readonly Delivery[]): void {
    for (const d of fresh) this.ledger.untrack(d)
    this.ledger.counters.dropped_unstored += fresh.length
  }

  private notStored(e: OutboxEvent, err: unknown): void {
    this.log.error(
      { err: err instanceof Error ? err.message : String(err), event_id: e.id },
      'webhook event not stored'
    )
  }
}

/** What `journal` did with one event. */
interface Journaled {
  /** webhooks the event matched */
  readonly matched: number
  /** its deliveries journaled as pending (to schedule once durable) */
  readonly fresh: Delivery[]
  /** the journal write of the first of them, null when none */
  readonly stored: Promise<void> | null
  /** other journal writes holding the rest (a write chunk boundary), usually null */
  readonly more: Set<Promise<void>> | null
}

/** Events of one turn whose deliveries wait for the same journal write. */
interface EventBatch {
  readonly write: Promise<void>
  readonly events: OutboxEvent[]
  readonly fresh: Delivery[]
}
