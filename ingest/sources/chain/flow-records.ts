/**
 * @module
 * What one batch of chain whale events sends down the ingest pipeline, for both chain sources (EVM and
 * Solana): a whale_transfer record per event that counts in flows (not circular, priced: the flow views
 * of schemas/004 sum them), those events' details for the read API (hops, pools, price source; events
 * inside the 7-day whale window only), and the batch's exchange net-flow readings per asset and hour
 * (/v1/onchain/metrics, the confirmation model).
 *
 * `ConfirmedGroup` is the EVM source's path for confirmed ranges (and the decode benchmark's,
 * bench/chain/decode-variant.ts): both tables' TSV in one pass (engine/whales/chain-batch-tsv.ts), the
 * whale_transfers chunk built from those bytes, so the records are not encoded a second time.
 */
import { columnsOf, KIND_SPECS } from '../../../engine/records/fields.js'
import type { NormalizedRecord, WhaleTransferRecord } from '../../../engine/records/types.js'
import type { WatchlistIndex } from '../../../engine/watchlist/registry.js'
import { ChainBatchEncoder, transferRecordOf } from '../../../engine/whales/chain-batch-tsv.js'
import { whaleWindowStart } from '../../../engine/live/whale-window.js'
import { recordChainDetails } from '../../../engine/whales/chain-details.js'
import type { ChainWhaleEvent } from '../../../engine/whales/tx-events.js'
import { ExchangeNetflow, exchangeNetflowReadings } from '../../../engine/onchain/chain-netflow.js'
import { chunkOf, type EncodedChunk } from '../../encoded-chunk.js'
import { encodeRecords } from '../../encode-records.js'

export interface FlowBatch {
  /** whale_transfer records, then the net-flow readings */
  readonly records: NormalizedRecord[]
  /** how many of `records` are whale transfers (the source's `rows`) */
  readonly transfers: number
  /** newest record time, epoch ms; null without records */
  readonly lastTs: number | null
}

/** `exchangeOf` of a watch list: the owner of a labelled exchange wallet on `chain` */
function exchangesOf(chain: string, watchlist: WatchlistIndex): (address: string) => string | undefined {
  return (a) => {
    const w = watchlist.wallet(chain, a)
    return w?.entity === 'exchange' ? w.owner : undefined
  }
}

/** records = the transfers, then the readings; lastTs their newest time */
function flowOf(transfers: readonly WhaleTransferRecord[], readings: readonly NormalizedRecord[]): FlowBatch {
  const records: NormalizedRecord[] = [...transfers]
  for (const r of readings) records.push(r)
  // a loop, not Math.max(...records): a large batch would overflow the argument list
  let lastTs: number | null = null
  for (const r of records) if (lastTs === null || r.ts > lastTs) lastTs = r.ts
  return { records, transfers: transfers.length, lastTs }
}

export function flowBatch(events: readonly ChainWhaleEvent[], chain: string, watchlist: WatchlistIndex): FlowBatch {
  const transfers: WhaleTransferRecord[] = []
  const counted: ChainWhaleEvent[] = []
  for (const e of events) {
    const r = transferRecordOf(e)
    if (r === null) continue
    transfers.push(r)
    counted.push(e)
  }
  recordChainDetails(counted, whaleWindowStart())
  return flowOf(transfers, exchangeNetflowReadings(counted, exchangesOf(chain, watchlist)))
}

export interface ConfirmedPayload extends FlowBatch {
  /** chain_whale_events TSV of every event, `confirmed` at the version given */
  readonly eventsTsv: Buffer
  /**
   * whale_transfers TSV of the flow rows (the first chunk's bytes when there are any; empty otherwise). Both
   * payloads' buffers go back to engine/whales/sink-pool.ts once their writes are done.
   */
  readonly transfersTsv: Buffer
  /** what `encodeRecords(records, false)` gives: the whale_transfers chunk, then the readings' */
  readonly chunks: EncodedChunk[]
}

/**
 * The events a write group's byte buffers start with room for, from its first range's `events` and the group's
 * size `writeEvents` (CHAIN_WRITE_EVENTS): two ranges' worth when two or more fit in the group, else one; the
 * buffers grow by doubling beyond that. Room for exactly what comes avoids outgrown buffers: V8 counts every
 * buffer allocated outside its heap (~640 bytes per event for both payloads) toward a full mark-compact every
 * ~64 MB, and a cold start that allocated one range's buffers and then their doubled copies paid one
 * (docs/sources.md, "Decode path, sessions 11 and 12").
 */
export function groupSizeHint(events: number, writeEvents: number): number {
  return events > 0 && events * 2 <= writeEvents ? events * 2 : events
}

/**
 * The confirmed events of one or more consecutive ranges (the EVM source's write group), added range by range
 * and written as one payload: each range's events are encoded into the group's two byte buffers, their
 * details remembered for the read API and their net flow summed as they are added, so the group holds bytes,
 * the whale_transfers records (the live state's) and per-hour sums, not the events. The same payload as one
 * `add` of all the events at once. Rows whose eventKey is in `stored` (written before a restart) stay out of
 * the flows, as `flowBatch` over the other events.
 */
export class ConfirmedGroup {
  private readonly encoder: ChainBatchEncoder
  private readonly netflow: ExchangeNetflow
  private readonly transfers: WhaleTransferRecord[] = []

  /** `expectedEvents`: the first size of the byte buffers (they grow as needed) */
  constructor(version: number, chain: string, watchlist: WatchlistIndex, expectedEvents: number) {
    this.encoder = new ChainBatchEncoder('confirmed', version, true, expectedEvents)
    this.netflow = new ExchangeNetflow(exchangesOf(chain, watchlist))
  }

  /** events added so far */
  get events(): number {
    return this.encoder.count
  }

  /** Rows whose eventKey is in `stored` (written before a restart) stay out of the flows. */
  add(events: readonly ChainWhaleEvent[], stored: ReadonlySet<string> | null): this {
    const part = this.encoder.add(events, stored)
    for (const r of part.records) this.transfers.push(r)
    recordChainDetails(part.counted, whaleWindowStart())
    // circular, internal, unpriced events and swaps never make a reading: the counted events are enough
    this.netflow.add(part.counted)
    return this
  }

  /** the payload; call once */
  finish(): ConfirmedPayload {
    const batch = this.encoder.finish()
    // flows were asked for: never null
    const transfersTsv = batch.transfers!
    const flow = flowOf(this.transfers, this.netflow.readings())
    const chunks: EncodedChunk[] = []
    if (flow.transfers > 0) {
      chunks.push(
        chunkOf(KIND_SPECS.whale_transfer.table, columnsOf('whale_transfer'), flow.transfers, transfersTsv, false)
      )
      chunks.push(...encodeRecords(flow.records.slice(flow.transfers), false))
    }
    return { ...flow, eventsTsv: batch.events, transfersTsv, chunks }
  }
}
