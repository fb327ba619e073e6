/**
 * @module
 * What one batch of chain whale events sends down the ingest pipeline, for both chain sources (EVM and
 * Solana): a whale_transfer record per event that counts in flows (not circular, priced: the flow views
 * of schemas/004 sum them), those events' details for the read API (hops, pools, price source), and the
 * batch's exchange net-flow readings per asset and hour (/v1/onchain/metrics, the confirmation model).
 */
import type { NormalizedRecord } from '../../../engine/records/types.js'
import type { WatchlistIndex } from '../../../engine/watchlist/registry.js'
import { transferRecordOf } from '../../../engine/whales/chain-event-store.js'
import { recordChainDetails } from '../../../engine/whales/chain-details.js'
import type { ChainWhaleEvent } from '../../../engine/whales/tx-events.js'
import { exchangeNetflowReadings } from '../../../engine/onchain/chain-netflow.js'

export interface FlowBatch {
  /** whale_transfer records, then the net-flow readings */
  readonly records: NormalizedRecord[]
  /** how many of `records` are whale transfers (the source's `rows`) */
  readonly transfers: number
  /** newest record time, epoch ms; null without records */
  readonly lastTs: number | null
}

export function flowBatch(events: readonly ChainWhaleEvent[], chain: string, watchlist: WatchlistIndex): FlowBatch {
  const records: NormalizedRecord[] = []
  const counted: ChainWhaleEvent[] = []
  for (const e of events) {
    const r = transferRecordOf(e)
    if (r === null) continue
    records.push(r)
    counted.push(e)
  }
  const transfers = records.length
  recordChainDetails(counted)
  const readings = exchangeNetflowReadings(events, (a) => {
    const w = watchlist.wallet(chain, a)
    return w?.entity === 'exchange' ? w.owner : undefined
  })
  for (const r of readings) records.push(r)
  // a loop, not Math.max(...records): a large batch would overflow the argument list
  let lastTs: number | null = null
  for (const r of records) if (lastTs === null || r.ts > lastTs) lastTs = r.ts
  return { records, transfers, lastTs }
}
