/**
 * @module
 * The blocks of an EVM chain source inside the confirmation depth (docs/sources.md, "Chain sources"): their
 * events are stored as `pending` on every new head; when a block hash changes, or a pending event is missing
 * from a later read (of the pending blocks, or of the confirmed range they became), that event is retracted
 * (an is_deleted row) and `reorgs` counts it. Aggregates are fed only from confirmed blocks, so they never
 * count a retracted event.
 */
import type { Store } from '../../../engine/store/store.js'
import { releaseSinkBytes } from '../../../engine/whales/sink-pool.js'
import { chainEventsIn, eventKey } from '../../../engine/whales/chain-event-store.js'
import type { ChainWhaleEvent } from '../../../engine/whales/tx-events.js'
import type { IngestItem } from '../../encoded-chunk.js'
import { CHAIN_EVENTS_TABLE, chainEventRows } from './chain-event-rows.js'

export interface PendingBlocksOptions {
  readonly store: Store
  readonly chain: string
  readonly confirmations: number
  /** block `n`'s hash as the node gives it now */
  readonly blockHash: (n: number) => Promise<string>
  /** the next row version (newer wins) */
  readonly nextVersion: () => number
}

export class PendingBlocks {
  /** reorgs seen (inside the depth, or a pending event whose block left the chain) */
  reorgs = 0
  /** events retracted */
  retracted = 0
  /** events of the pending blocks at the last read */
  events = 0
  /** hashes of the blocks inside the confirmation depth as last read */
  private hashes = new Map<number, string>()

  constructor(private readonly opts: PendingBlocksOptions) {}

  /** blocks [from, to] are confirmed and written: their pending hashes are no longer watched */
  confirmed(from: number, to: number): void {
    for (let n = from; n <= to; n++) this.hashes.delete(n)
  }

  /**
   * A confirmed range's events: pending ones of [from, to] they do not include were in blocks that left the
   * canonical chain, and are retracted: their rows, for the pipeline (written with the group, whose barrier the
   * checkpoint waits for), or null when none is. The pending rows read here were written before: every pending
   * write ends with its own barrier (read).
   */
  async retractDropped(
    from: number,
    to: number,
    events: readonly ChainWhaleEvent[],
    version: number
  ): Promise<ReturnType<typeof chainEventRows>> {
    if (this.opts.confirmations <= 1) return null
    const keep = new Set(events.map(eventKey))
    const pending = await chainEventsIn(this.opts.store, this.opts.chain, from, to, 'pending')
    const dropped = pending.filter((p) => !keep.has(eventKey(p)))
    if (dropped.length === 0) return null
    this.retracted += dropped.length
    // an event gone from its canonical block (a watch list reloaded, a price that moved it under the size) is
    // retracted without being a reorg
    const canonical = new Map(events.map((e) => [e.block_number, e.block_hash]))
    if (await this.offCanonical(dropped, canonical, to)) this.reorgs += 1
    return chainEventRows(dropped, 'retracted', version)
  }

  /**
   * True when one of `dropped`'s blocks is past `head` or has another hash than the canonical one (`known` block
   * hashes as just read; others asked for): the events left because their block did, a reorg.
   */
  private async offCanonical(
    dropped: readonly ChainWhaleEvent[],
    known: ReadonlyMap<number, string>,
    head: number
  ): Promise<boolean> {
    for (const n of new Set(dropped.map((d) => d.block_number))) {
      if (n > head) return true
      const hash = known.get(n) ?? (await this.opts.blockHash(n))
      if (dropped.some((d) => d.block_number === n && d.block_hash !== hash)) return true
    }
    return false
  }

  /**
   * Blocks [from, head] inside the confirmation depth, whose events are `events`: store them as pending,
   * retract those a reorg removed. Ends with a barrier on chain_whale_events: the next read of pending rows
   * (here or in retractDropped) finds these.
   */
  async *read(from: number, head: number, events: readonly ChainWhaleEvent[]): AsyncGenerator<IngestItem, void> {
    const { store, chain } = this.opts
    const hashes = new Map(events.map((e) => [e.block_number, e.block_hash]))
    // a block seen before that is gone or has another hash now: a reorg inside the confirmation depth
    let reorged = false
    for (const [n, hash] of this.hashes) {
      const now = hashes.get(n)
      if (n > head || (now !== undefined && now !== hash)) reorged = true
    }
    const current = new Map(events.map((e) => [eventKey(e), e]))
    const before = await chainEventsIn(store, chain, from, Number.MAX_SAFE_INTEGER, 'pending')
    const dropped = before.filter((p) => !current.has(eventKey(p)))
    const seen = new Map(before.map((p) => [eventKey(p), p.block_hash]))
    const fresh = events.filter((e) => seen.get(eventKey(e)) !== e.block_hash)
    // retractions rank below the fresh pending rows (an older version)
    const retracted = chainEventRows(dropped, 'retracted', this.opts.nextVersion())
    const pending = chainEventRows(fresh, 'pending', this.opts.nextVersion())
    if (dropped.length > 0) {
      this.retracted += dropped.length
      // a reorg when a dropped event's block is gone or no longer canonical; not when the event left a
      // canonical block (a watch list reloaded, a price that moved it under the size)
      if (!reorged) reorged = await this.offCanonical(dropped, hashes, head)
    }
    if (reorged) this.reorgs += 1
    const rows = [retracted, pending].filter((r) => r !== null)
    for (const r of rows) yield r.chunk
    if (rows.length > 0) yield { barrier: true, tables: [CHAIN_EVENTS_TABLE] }
    // written: the encoders' buffers serve the next batches (sink-pool.ts)
    for (const r of rows) releaseSinkBytes(r.bytes)
    this.hashes = hashes
    this.events = events.length
  }
}
