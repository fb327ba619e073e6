/**
 * @module
 * The chain decode benchmark's rows (bench/chain/decode-variant.ts, store-probe.ts, path-probe.ts): the range
 * size, the token table and fixed prices, and recorded transactions through the EVM source's own path, shaped
 * as its backfill writes them: ranges of BATCH transactions are decoded one at a time with decodeTx (what
 * EvmRangeFetcher does with a receipt) and txEvents (EvmWhaleSource.eventsOf), their events held until the
 * group numbers WRITE_EVENTS (the source's CHAIN_WRITE_EVENTS default) or the data ends, and each group goes
 * through confirmedPayload (EvmWhaleSource.confirm: both tables' TSV, the details for the read API, the
 * net-flow readings). 20,000 transactions of this dataset give ~36,000 events, so a group is 2 ranges.
 */
import { WatchlistIndex } from '../../engine/watchlist/registry.js'
import { txEvents, type ChainWhaleEvent, type TokenInfo, type TxEventContext } from '../../engine/whales/tx-events.js'
import { NATIVE } from '../../engine/whales/tx-legs.js'
import { decodeTx } from '../../ingest/normalize/chain/evm-decode.js'
import { chainSourcesConfig } from '../../ingest/sources/chain/chain-settings.js'
import { confirmedPayload, type ConfirmedPayload } from '../../ingest/sources/chain/flow-records.js'
import { BBB, chainDataset, USDC, WETH } from './dataset.js'

/** transactions per decoded range (the source's CHAIN_BATCH_BLOCKS of busy blocks) */
export const BATCH = 20_000
/** events per write group (evm-whale-source.ts, "Backfill writes in groups"): CHAIN_WRITE_EVENTS, as the service */
export const WRITE_EVENTS = chainSourcesConfig(process.env).evm.ethereum.writeEvents

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

/** the dataset in ranges of BATCH transactions (the list itself is not kept: a range is dropped once decoded) */
export function rangesOf(inputs: Inputs): Array<Inputs | null> {
  const ranges: Array<Inputs | null> = []
  for (let i = 0; i < inputs.length; i += BATCH) ranges.push(inputs.slice(i, i + BATCH))
  return ranges
}

/** one write group as the source stores it: chain_whale_events bytes and the pipeline's chunks */
export interface GroupPayload {
  readonly events: number
  readonly payload: ConfirmedPayload
}

/**
 * Decodes the ranges in order, each dropped (set to null) once its events are taken, as the source lets go of
 * a range's receipts; yields a group's payload once it holds WRITE_EVENTS events, and the rest at the end.
 */
export function* groupPayloads(ranges: Array<Inputs | null>): Generator<GroupPayload> {
  let held: ChainWhaleEvent[] = []
  for (let n = 0; n < ranges.length; n++) {
    const range = ranges[n]!
    ranges[n] = null
    for (const input of range) for (const e of txEvents(decodeTx(input, WETH), CTX)) held.push(e)
    if (held.length < WRITE_EVENTS && n < ranges.length - 1) continue
    yield { events: held.length, payload: confirmedPayload(held, 1, null, 'ethereum', WATCHLIST) }
    held = []
  }
}
