/**
 * @module
 * `evm:<chain>`: whale events from the operator's node for one EVM chain (docs/sources.md, "Chain sources").
 *
 * - Start: the node's chain id is checked (ChainClient.verifyChainId); resume after the stored checkpoint,
 *   else from `startBlock`, else `backfillBlocks` behind the head.
 * - Every row goes through the ingest pipeline (chain-event-rows.ts, flow-records.ts): batched, journaled,
 *   retried, counted in health like any source's; the pipeline's barrier is the acknowledgement that rows are
 *   written, and the checkpoint is stored only after one.
 * - Confirmed blocks (at least `confirmations` deep: head − confirmations + 1) are read in batches of up to
 *   `batchBlocks`: events become `confirmed` rows of chain_whale_events and, when they count in flows (not
 *   circular, priced), whale_transfers rows; a barrier then stores the checkpoint
 *   (last block and its hash), so a restart resumes after the last acknowledged batch or group. Rows already in
 *   whale_transfers after the checkpoint (a group's flow rows written before a crash or a failed detail insert,
 *   checkpoint not yet stored) are skipped in every range up to the highest such block (`writtenUpTo`): writes
 *   are idempotent by (chain, tx_hash, log_index, address).
 * - Backfill writes in groups: consecutive backfill batches are encoded as they are read into one payload
 *   (flow-records.ts ConfirmedGroup: the group holds bytes, the whale_transfers records and per-hour sums, not
 *   the events or receipts) and written as one batch with one checkpoint once they number `writeEvents`
 *   events, once `writeHoldMs` has passed since the group's first batch was read (so on a chain with few whale
 *   events the checkpoint and health's last processed block still move), or when the backfill ends. Every
 *   insert costs a fixed ~35 ms of CPU for whale_transfers and its two flow views, whatever its size
 *   (docs/sources.md, "Decode path, sessions 11 and 12"); a crash before the group's checkpoint re-reads the
 *   whole group.
 * - Blocks inside the confirmation depth are read on every new head and their events stored as `pending`
 *   (pending-blocks.ts; a barrier on chain_whale_events follows, so the next read of pending rows finds them).
 *   When a block hash changes, or a pending event is missing from a later read, that event is retracted
 *   (is_deleted row) and `reorgs` counts it. Aggregates are fed only from confirmed blocks, so they never
 *   count a retracted event. A reorg deeper than the depth is counted as `deep_reorgs` and logged.
 * - New heads (new-heads.ts): a WebSocket subscription (`<ENV>_WS_URL`, eth_subscribe newHeads through viem)
 *   wakes the loop; polling every `pollMs` is the fallback and always runs.
 * - A range's events: range-events.ts (watch list, prices, fetch, per-transaction collapse).
 * - An RPC failure ends the run with the error: the supervisor restarts it with backoff, and health shows
 *   `connected: false` with the error counted, while the other chains keep running.
 */
import type { ChainClient } from '../../../engine/chain/chain-client.js'
import { EVM_CHAINS, type EvmChainName } from '../../../engine/chain/chains.js'
import type { Logger } from '../../../engine/log.js'
import type { Store } from '../../../engine/store/store.js'
import type { WatchlistRegistry } from '../../../engine/watchlist/registry.js'
import {
  confirmedKeys,
  loadCheckpoint,
  saveCheckpoint,
  writtenUpTo,
  type Checkpoint
} from '../../../engine/whales/chain-event-store.js'
import { loadChainDetails } from '../../../engine/whales/chain-details.js'
import { whaleWindowStart } from '../../../engine/live/whale-window.js'
import type { IngestItem } from '../../encoded-chunk.js'
import type { Source } from '../source.js'
import { RangeChunker } from './range-chunker.js'
import { ClientRpc, RecordingRpc, ReplayRpc, type EvmRpc } from './evm-rpc.js'
import { TapePlayer, TapeRecorder, tapeFile } from './rpc-tape.js'
import { ConfirmedGroup, groupSizeHint } from './flow-records.js'
import { releaseSinkBytes } from '../../../engine/whales/sink-pool.js'
import { chainEventsChunk } from './chain-event-rows.js'
import type { EvmSourceSettings } from './chain-settings.js'
import type { ChainSourceStatus } from './chain-health.js'
import { NewHeads } from './new-heads.js'
import { PendingBlocks } from './pending-blocks.js'
import { RangeEvents } from './range-events.js'

export type { ChainHealth, ChainSourceStatus } from './chain-health.js'

/** Consecutive backfill batches written together (see the module's "writes in groups"). */
interface WriteGroup {
  readonly from: number
  /** version of the pending events its batches retract: below the payload's, above every pending row's */
  readonly retractVersion: number
  /** the batches' events, encoded as they are read (the group holds their bytes, not the events) */
  readonly payload: ConfirmedGroup
  /** bytes of the retractions its batches handed to the pipeline: back to sink-pool.ts once the group is written */
  readonly retractions: Buffer[]
  /** performance.now() when its first batch was read */
  readonly since: number
  /** its last batch read so far: the checkpoint it stores (last block and hash) and that block's time, epoch ms */
  end: { readonly checkpoint: Checkpoint; readonly ts: number }
}

export interface EvmWhaleSourceOptions {
  readonly chain: EvmChainName
  /** the chain's shared client (engine/chain/chain-clients.ts), resolved when the source starts */
  readonly client: () => ChainClient
  readonly store: Store
  readonly watchlists: WatchlistRegistry
  readonly settings: EvmSourceSettings
  readonly log: Logger
  /** monotonic ms, for the write hold (`writeHoldMs`; tests move it on). @default performance.now */
  readonly now?: () => number
}

export class EvmWhaleSource implements Source {
  readonly name: string
  readonly synthetic = false
  private readonly spec
  private connected = false
  /** the read API's details of the last 7 days loaded (once per process, engine/whales/chain-details.ts) */
  private phase = 'starting'
  private head: number | null = null
  private lastProcessed: number | null = null
  private lastProcessedTs: number | null = null
  private lastEventTs: number | null = null
  private rows = 0
  private deepReorgs = 0
  private rpcErrors = 0
  private unpriced = 0
  private version = 0
  private readonly chunker: RangeChunker
  private readonly ranges: RangeEvents
  private readonly heads: NewHeads
  private readonly pending: PendingBlocks
  private recorder: TapeRecorder | null = null

  constructor(private readonly opts: EvmWhaleSourceOptions) {
    this.name = `evm:${opts.chain}`
    this.spec = EVM_CHAINS[opts.chain]
    this.chunker = new RangeChunker(opts.settings.maxSpan)
    this.ranges = new RangeEvents({
      chain: opts.chain,
      spec: this.spec,
      store: opts.store,
      watchlists: opts.watchlists,
      minUsd: opts.settings.minUsd,
      wrappedNative: opts.settings.wrappedNative,
      chunker: this.chunker
    })
    this.heads = new NewHeads(opts.settings.wsUrl, opts.settings.pollMs)
    this.pending = new PendingBlocks({
      store: opts.store,
      chain: opts.chain,
      confirmations: opts.settings.confirmations,
      blockHash: async (n) => (await this.ranges.header(n)).hash,
      nextVersion: () => this.nextVersion()
    })
  }

  /** the node through the shared client, or a recording of it (CHAIN_REPLAY_DIR); recorded with CHAIN_RECORD_DIR */
  private makeRpc(): EvmRpc {
    const { replayDir, recordDir } = this.opts.settings
    if (replayDir !== undefined) return new ReplayRpc(new TapePlayer(tapeFile(replayDir, this.name)))
    const rpc = new ClientRpc(this.opts.client())
    if (recordDir === undefined) return rpc
    this.recorder ??= new TapeRecorder(tapeFile(recordDir, this.name))
    return new RecordingRpc(rpc, this.recorder)
  }

  private nextVersion(): number {
    this.version = Math.max(this.version + 1, Date.now())
    return this.version
  }

  private async resumeFrom(head: number): Promise<{ next: number; checkpoint: Checkpoint | null }> {
    const checkpoint = await loadCheckpoint(this.opts.store, this.opts.chain)
    if (checkpoint !== null) return { next: checkpoint.block + 1, checkpoint }
    const s = this.opts.settings
    const next = s.startBlock ?? Math.max(0, head - s.backfillBlocks)
    return { next, checkpoint: null }
  }

  async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const { store, log } = this.opts
    const rpc = this.makeRpc()
    this.ranges.rpc = rpc
    this.phase = 'connecting'
    try {
      await rpc.verifyChain()
    } catch (err) {
      this.connected = false
      this.rpcErrors += 1
      throw err
    }
    this.connected = true
    // once per store and chain (chain-details.ts): a restart of the source after an error keeps what it remembered
    await loadChainDetails(store, this.opts.chain, whaleWindowStart())
    let head = await rpc.blockNumber()
    let { next, checkpoint } = await this.resumeFrom(head)
    // rows of ranges after the checkpoint may already be stored (a crash, or a failed detail insert, after a
    // group's flow rows were written but before its checkpoint): ranges up to the highest such block are
    // checked against whale_transfers, later ones need not be
    const recheckTo = await writtenUpTo(store, this.opts.chain, next)
    let pendingHead = -1
    // backfill batches read but not written yet (their checkpoint is not stored: a restart reads them again)
    let group: WriteGroup | null = null
    const unsubscribe = this.heads.subscribe(signal)
    try {
      while (!signal.aborted) {
        head = await rpc.blockNumber()
        this.head = head
        this.connected = true
        const safe = head - this.opts.settings.confirmations + 1
        if (next <= safe) {
          const backfill = safe - next > this.opts.settings.batchBlocks
          this.phase = backfill ? 'backfill' : 'live'
          const to = Math.min(safe, next + this.opts.settings.batchBlocks - 1)
          if (checkpoint !== null) await this.checkParent(next, checkpoint)
          const read = await this.ranges.read(next, to)
          // counted once, when confirmed: the pending reads see the same events again at every new head
          for (const e of read.events) if (e.usd_value === null) this.unpriced += 1
          const cp = { block: to, hash: read.toHash }
          const end = { checkpoint: cp, ts: read.toTs }
          const stored =
            recheckTo !== null && next <= recheckTo ? await confirmedKeys(store, this.opts.chain, next, to) : null
          if (group === null) {
            // retractions of any batch of the group rank below its confirmed rows: a pending event retracted in
            // one batch and confirmed in a later one (its transaction moved to a later block) stays confirmed
            const retractVersion = this.nextVersion()
            group = {
              from: next,
              retractVersion,
              payload: new ConfirmedGroup(
                this.nextVersion(),
                this.opts.chain,
                this.opts.watchlists.current,
                backfill ? groupSizeHint(read.events.length, this.opts.settings.writeEvents) : read.events.length
              ),
              retractions: [],
              since: this.opts.now?.() ?? performance.now(),
              end
            }
          }
          const retraction = await this.pending.retractDropped(next, to, read.events, group.retractVersion)
          if (retraction !== null) {
            yield retraction.chunk
            group.retractions.push(retraction.bytes)
          }
          group.payload.add(read.events, stored)
          group.end = end
          // the next batch checks its parent against this one's last block (checkParent)
          checkpoint = cp
          next = to + 1
          // more backfill follows (backfill: `to` is more than a batch behind safe): hold the group's bytes (not
          // the receipts) until it is worth an insert
          if (
            backfill &&
            group.payload.events < this.opts.settings.writeEvents &&
            (this.opts.now?.() ?? performance.now()) - group.since < this.opts.settings.writeHoldMs
          )
            continue
          yield* this.write(group)
          group = null
          continue
        }
        // the head went back (a failover to a node behind the last one) with a group held: written now
        if (group !== null) {
          yield* this.write(group)
          group = null
        }
        this.phase = 'live'
        if (head !== pendingHead && this.opts.settings.confirmations > 1) {
          yield* this.readPending(Math.max(next, safe + 1), head)
          pendingHead = head
        }
        await this.heads.idle(signal)
      }
    } catch (err) {
      if (!signal.aborted) {
        this.connected = false
        this.rpcErrors += 1
        log.warn({ chain: this.opts.chain, err: (err as Error).message }, 'chain source failed; the supervisor retries')
      }
      throw err
    } finally {
      unsubscribe()
    }
  }

  /** A reorg deeper than the confirmation depth: the stored checkpoint's block is no longer canonical. */
  private async checkParent(next: number, checkpoint: Checkpoint): Promise<void> {
    if (checkpoint.block !== next - 1) return
    const header = await this.ranges.header(checkpoint.block)
    if (header.hash !== checkpoint.hash) {
      this.deepReorgs += 1
      this.opts.log.error(
        { chain: this.opts.chain, block: checkpoint.block, stored: checkpoint.hash, canonical: header.hash },
        'reorg deeper than the confirmation depth: events already confirmed stay; raise the confirmation depth'
      )
    }
  }

  /**
   * Writes a group: its detail rows (chain_whale_events) and its flow rows go to the pipeline, whose batchers
   * write the two tables side by side, then a barrier: the checkpoint is stored in its onDone, once both are
   * written. A batch that failed for good fails the barrier and ends the run there, before the checkpoint. Both
   * written, their bytes go back to sink-pool.ts for the next group's encoder.
   */
  private async *write(group: WriteGroup): AsyncGenerator<IngestItem, void> {
    const { checkpoint, ts } = group.end
    // rows already in whale_transfers were left out of the flows when the group was encoded
    const payload = group.payload.finish()
    if (group.payload.events > 0) yield chainEventsChunk(payload.eventsTsv, group.payload.events)
    this.pending.confirmed(group.from, checkpoint.block)
    const { records, transfers, lastTs } = payload
    if (records.length > 0) {
      yield* payload.chunks
      yield { live: true, records }
      this.rows += transfers
      this.lastEventTs = Math.max(this.lastEventTs ?? 0, lastTs!)
    }
    yield {
      barrier: true,
      onDone: async () => {
        releaseSinkBytes(payload.eventsTsv)
        releaseSinkBytes(payload.transfersTsv)
        for (const bytes of group.retractions) releaseSinkBytes(bytes)
        await saveCheckpoint(this.opts.store, this.opts.chain, checkpoint)
        this.lastProcessed = checkpoint.block
        this.lastProcessedTs = ts
      }
    }
  }

  /** Blocks inside the confirmation depth (pending-blocks.ts): their events stored as pending. */
  private async *readPending(from: number, head: number): AsyncGenerator<IngestItem, void> {
    if (from > head) return
    const { events } = await this.ranges.read(from, head)
    yield* this.pending.read(from, head, events)
  }

  private clientOrNull(): ChainClient | null {
    try {
      return this.opts.client()
    } catch {
      return null
    }
  }

  status(): ChainSourceStatus {
    const f = this.ranges.fetcher?.counters
    // unknown while the node is unreachable: the last head seen would freeze the lag at its last value
    const lagBlocks =
      this.connected && this.head !== null && this.lastProcessed !== null
        ? Math.max(0, this.head - this.lastProcessed)
        : null
    return {
      name: this.name,
      synthetic: false,
      connected: this.connected,
      last_event_ts: this.lastEventTs,
      rows: this.rows,
      phase: this.phase,
      chain: {
        chain_id: this.spec.chainId,
        chain_id_ok: this.clientOrNull()?.chainIdsOk() ?? null,
        head: this.head,
        last_processed: this.lastProcessed,
        lag_blocks: lagBlocks,
        lag_s:
          this.lastProcessedTs === null ? null : Math.max(0, Math.round((Date.now() - this.lastProcessedTs) / 1000)),
        confirmations: this.opts.settings.confirmations,
        reorgs: this.pending.reorgs,
        deep_reorgs: this.deepReorgs,
        retracted: this.pending.retracted,
        logs: f?.logs ?? 0,
        malformed_logs: f?.malformed_logs ?? 0,
        receipts: f?.receipts ?? 0,
        rpc_calls: f?.rpc_calls ?? 0,
        rpc_errors: this.rpcErrors + (this.clientOrNull()?.stats().rpc_errors ?? 0),
        span_blocks: this.chunker.span,
        span_halvings: this.chunker.halvings,
        pending_events: this.pending.events,
        unpriced_events: this.unpriced,
        ws: this.heads.ws
      }
    }
  }
}
