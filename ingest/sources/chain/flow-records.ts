/**
 * @module
 * What one batch of chain whale events sends down the ingest pipeline, for both chain sources (EVM and
 * Solana): a whale_transfer record per event that counts in flows (not circular, priced: the flow views
 * of schemas/004 sum them), those events' details for the read API (hops, pools, price source), and the
 * batch's exchange net-flow readings per asset and hour (/v1/onchain/metrics, the confirmation model).
 *
 * `confirmedPayload` is the EVM source's path for a confirmed range (and the decode benchmark's,
 * bench/chain/decode-variant.ts): both tables' TSV in one pass (engine/whales/chain-batch-tsv.ts), the
 * whale_transfers chunk built from those bytes, so the records are not encoded a second time.
 */
import crypto from 'node:crypto'
import { columnsOf, KIND_SPECS } from '../../../engine/records/fields.js'
import type { NormalizedRecord, WhaleTransferRecord } from '../../../engine/records/types.js'
import type { WatchlistIndex } from '../../../engine/watchlist/registry.js'
import { transferRecordOf } from '../../../engine/whales/chain-batch-tsv.js'
import { encodeChainBatch } from '../../../engine/whales/chain-batch-tsv.js'
import { recordChainDetails } from '../../../engine/whales/chain-details.js'
import type { ChainWhaleEvent } from '../../../engine/whales/tx-events.js'
import { exchangeNetflowReadings } from '../../../engine/onchain/chain-netflow.js'
import type { EncodedChunk } from '../../encoded-chunk.js'
import { encodeRecords } from '../../encode-records.js'

export interface FlowBatch {
  /** whale_transfer records, then the net-flow readings */
  readonly records: NormalizedRecord[]
  /** how many of `records` are whale transfers (the source's `rows`) */
  readonly transfers: number
  /** newest record time, epoch ms; null without records */
  readonly lastTs: number | null
}

/**
 * The flow side of `counted` (the events behind `transfers`, same order): their details remembered, the
 * batch's net-flow readings appended.
 */
function withReadings(
  transfers: readonly WhaleTransferRecord[],
  counted: readonly ChainWhaleEvent[],
  chain: string,
  watchlist: WatchlistIndex
): FlowBatch {
  const records: NormalizedRecord[] = [...transfers]
  recordChainDetails(counted)
  // circular, internal, unpriced events and swaps never make a reading: the counted events are enough
  const readings = exchangeNetflowReadings(counted, (a) => {
    const w = watchlist.wallet(chain, a)
    return w?.entity === 'exchange' ? w.owner : undefined
  })
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
  return withReadings(transfers, counted, chain, watchlist)
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
 * A confirmed range's events → the detail table's bytes and the pipeline's chunks. Rows whose eventKey is in
 * `stored` (written before a restart) stay out of the flows, as `flowBatch` over the other events.
 */
export function confirmedPayload(
  events: readonly ChainWhaleEvent[],
  version: number,
  stored: ReadonlySet<string> | null,
  chain: string,
  watchlist: WatchlistIndex
): ConfirmedPayload {
  const batch = encodeChainBatch(events, 'confirmed', version, { skip: stored })
  // flows were asked for: never null
  const transfersTsv = batch.transfers!
  const flow = withReadings(batch.records, batch.counted, chain, watchlist)
  const chunks: EncodedChunk[] = []
  if (batch.records.length > 0) {
    chunks.push({
      table: KIND_SPECS.whale_transfer.table,
      columns: columnsOf('whale_transfer'),
      rows: batch.records.length,
      data: transfersTsv,
      hash: crypto.createHash('sha1').update(transfersTsv).digest('hex'),
      bulk: false
    })
    chunks.push(...encodeRecords(flow.records.slice(batch.records.length), false))
  }
  return { ...flow, eventsTsv: batch.events, transfersTsv, chunks }
}
