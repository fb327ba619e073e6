/**
 * @module
 * The chain decode benchmark's rows (bench/chain/decode-variant.ts, store-probe.ts): the batch size, the token
 * table and fixed prices, and one batch of recorded transactions decoded and collapsed into chain events and
 * their whale_transfers records.
 */
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { transferRecordOf } from '../../engine/whales/chain-event-store.js'
import { txEvents, type ChainWhaleEvent, type TokenInfo, type TxEventContext } from '../../engine/whales/tx-events.js'
import { NATIVE } from '../../engine/whales/tx-legs.js'
import { decodeTx } from '../../ingest/normalize/chain/evm-decode.js'
import { BBB, chainDataset, USDC, WETH } from './dataset.js'

/** transactions per insert batch (the source's CHAIN_BATCH_BLOCKS of busy blocks) */
export const BATCH = 20_000

const TOKENS = new Map<string, TokenInfo>([
  [NATIVE, { symbol: 'ETH', decimals: 18, priceAsset: 'ETH' }],
  [USDC, { symbol: 'USDC', decimals: 6, priceAsset: 'USD' }],
  [BBB, { symbol: 'BBB', decimals: 18, priceAsset: 'BBB' }]
])
const CTX: TxEventContext = {
  token: (a) => TOKENS.get(a),
  wallet: () => undefined,
  pricer: { price: (asset) => (asset === 'ETH' ? { usd: 3_000, source: 'bench' } : null) },
  minUsd: 100_000
}

export function collapse(batch: ReturnType<typeof chainDataset>['inputs']): {
  events: ChainWhaleEvent[]
  records: WhaleTransferRecord[]
} {
  const events: ChainWhaleEvent[] = []
  for (const input of batch) events.push(...txEvents(decodeTx(input, WETH), CTX))
  const records: WhaleTransferRecord[] = []
  for (const e of events) {
    const r = transferRecordOf(e)
    if (r !== null) records.push(r)
  }
  return { events, records }
}
