/**
 * @module
 * The chain decode benchmark's rows (bench/chain/decode-variant.ts, store-probe.ts): the batch size, the token
 * table and fixed prices, and one batch of recorded transactions through the EVM source's own path: decodeTx
 * (what EvmRangeFetcher does with a receipt), txEvents (EvmWhaleSource.eventsOf) and confirmedPayload
 * (EvmWhaleSource.confirm: both tables' TSV, the details for the read API, the net-flow readings).
 */
import { WatchlistIndex } from '../../engine/watchlist/registry.js'
import { txEvents, type ChainWhaleEvent, type TokenInfo, type TxEventContext } from '../../engine/whales/tx-events.js'
import { NATIVE } from '../../engine/whales/tx-legs.js'
import { decodeTx } from '../../ingest/normalize/chain/evm-decode.js'
import { confirmedPayload, type ConfirmedPayload } from '../../ingest/sources/chain/flow-records.js'
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
const WATCHLIST = new WatchlistIndex({ wallets: [], tokens: [], files: [], loadedAt: 0 })

type Inputs = ReturnType<typeof chainDataset>['inputs']

/** decoded and collapsed events of a batch of recorded transactions */
export function batchEvents(batch: Inputs): ChainWhaleEvent[] {
  const events: ChainWhaleEvent[] = []
  for (const input of batch) for (const e of txEvents(decodeTx(input, WETH), CTX)) events.push(e)
  return events
}

/** one batch as the source stores it: chain_whale_events bytes and the pipeline's chunks (whale_transfers first) */
export function batchPayload(batch: Inputs): { events: number; payload: ConfirmedPayload } {
  const events = batchEvents(batch)
  return { events: events.length, payload: confirmedPayload(events, 1, null, 'ethereum', WATCHLIST) }
}
