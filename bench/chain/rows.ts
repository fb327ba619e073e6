/**
 * @module
 * The chain decode benchmark's rows (bench/chain/decode-variant.ts, store-probe.ts, path-probe.ts): the range
 * size, the token table and fixed prices, and recorded transactions through the EVM source's own path, shaped
 * as its backfill writes them: ranges of BATCH transactions are decoded one at a time with decodeTx (what
 * EvmRangeFetcher does with a receipt) and txEvents (EvmWhaleSource.eventsOf), each range's events added to
 * the open write group (flow-records.ts ConfirmedGroup: both tables' TSV, the details for the read API, the
 * net-flow sums) until it holds WRITE_EVENTS events (CHAIN_WRITE_EVENTS, as the service reads it) or the data
 * ends. 20,000 transactions of this dataset give ~36,000 events: at the default (10,000) a group is one range;
 * CHAIN_WRITE_EVENTS=50000 makes it two.
 */
import { WatchlistIndex } from '../../engine/watchlist/registry.js'
import { txEvents, type ChainWhaleEvent, type TokenInfo, type TxEventContext } from '../../engine/whales/tx-events.js'
import { NATIVE } from '../../engine/whales/tx-legs.js'
import { decodeTx } from '../../ingest/normalize/chain/evm-decode.js'
import { chainSourcesConfig } from '../../ingest/sources/chain/chain-settings.js'
import { ConfirmedGroup, groupSizeHint, type ConfirmedPayload } from '../../ingest/sources/chain/flow-records.js'
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
 * Decodes the ranges in order, each dropped (set to null) once decoded, as the source lets go of a range's
 * receipts, and adds its events to the open write group (flow-records.ts ConfirmedGroup, as the source does);
 * yields a group's payload once it holds WRITE_EVENTS events, and the rest at the end.
 */
export function* groupPayloads(ranges: Array<Inputs | null>): Generator<GroupPayload> {
  let group: ConfirmedGroup | null = null
  for (let n = 0; n < ranges.length; n++) {
    const range = ranges[n]!
    ranges[n] = null
    const events: ChainWhaleEvent[] = []
    for (const input of range) for (const e of txEvents(decodeTx(input, WETH), CTX)) events.push(e)
    group ??= new ConfirmedGroup(1, 'ethereum', WATCHLIST, groupSizeHint(events.length, WRITE_EVENTS))
    group.add(events, null)
    if (group.events < WRITE_EVENTS && n < ranges.length - 1) continue
    yield { events: group.events, payload: group.finish() }
    group = null
  }
}
