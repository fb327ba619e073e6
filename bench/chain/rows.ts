/**
 * @module
 * The chain decode benchmark's rows (bench/chain/decode-variant.ts, store-probe.ts, path-probe.ts): the range
 * size, the token table and fixed prices, and recorded transactions through the EVM source's own path, shaped
 * as its backfill writes them: ranges of BATCH transactions are decoded one at a time with decodeTx (what
 * EvmRangeFetcher does with a receipt) and txEvents (RangeEvents.read, ingest/sources/chain/range-events.ts),
 * each range's events added to the open write group (flow-records.ts ConfirmedGroup: both tables' TSV, the
 * details for the read API, the net-flow sums) until it holds WRITE_EVENTS events (CHAIN_WRITE_EVENTS, as the service reads it) or the data
 * ends. 20,000 transactions of this dataset give ~36,000 events: at the default (10,000) a group is one range;
 * CHAIN_WRITE_EVENTS=50000 makes it two.
 */
import { WatchlistIndex } from '../../engine/watchlist/registry.js'
import { txEvents, type ChainWhaleEvent, type TokenInfo, type TxEventContext } from '../../engine/whales/tx-events.js'
import { NATIVE } from '../../engine/whales/tx-legs.js'
import { decodeTx, type EvmLog } from '../../ingest/normalize/chain/evm-decode.js'
import { candidatesOf, type CandidateContext } from '../../ingest/sources/chain/evm-fetch.js'
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

/** the dataset in ranges of BATCH transactions */
export function rangesOf(inputs: Inputs): Array<Inputs | null> {
  const ranges: Array<Inputs | null> = []
  for (let i = 0; i < inputs.length; i += BATCH) ranges.push(inputs.slice(i, i + BATCH))
  return ranges
}

/** the ranges in order, each let go (set to null) once handed out, as the source lets go of a range's receipts */
export function* drain(ranges: Array<Inputs | null>): Generator<Inputs> {
  for (let n = 0; n < ranges.length; n++) {
    const range = ranges[n]!
    ranges[n] = null
    yield range
  }
}

/** blocks per range of the realistic mix (2,000 whale transactions and their small transfers) */
export const MIXED_RANGE_BLOCKS = 20
const CANDIDATES: CandidateContext = {
  wrappedNative: WETH,
  token: CTX.token,
  wallets: new Set(),
  pricer: CTX.pricer,
  minUsd: CTX.minUsd
}

/**
 * The realistic mix (dataset.ts mixedDataset) as the source reads it, range by range: the range's
 * eth_getLogs answer through the fetcher's candidate filter (ingest/sources/chain/evm-fetch.ts candidatesOf),
 * then the candidates' receipts (looked up, where the source asks the node). Each range's logs are let go once
 * filtered.
 */
export function* mixedRanges(data: {
  logs: EvmLog[] | null
  receipts: ReadonlyMap<string, Inputs[number]>
}): Generator<Inputs> {
  const logs = data.logs!
  data.logs = null
  let at = 0
  while (at < logs.length) {
    const first = Number(logs[at]!.blockNumber)
    let end = at
    while (end < logs.length && Number(logs[end]!.blockNumber) < first + MIXED_RANGE_BLOCKS) end++
    const range = logs.slice(at, end)
    logs.fill(null as unknown as EvmLog, at, end)
    at = end
    const approxTs = data.receipts.get(range[0]!.transactionHash!)?.ts ?? 0
    const inputs: Inputs = []
    for (const hash of candidatesOf(range, CANDIDATES, approxTs, () => undefined).keys()) {
      const input = data.receipts.get(hash)
      if (input !== undefined) inputs.push(input)
    }
    yield inputs
  }
}

/** one write group as the source stores it: chain_whale_events bytes and the pipeline's chunks */
export interface GroupPayload {
  readonly events: number
  readonly payload: ConfirmedPayload
}

/**
 * Decodes the ranges in order and adds each range's events to the open write group (flow-records.ts
 * ConfirmedGroup, as the source does); yields a group's payload once it holds WRITE_EVENTS events, and the
 * rest when the ranges end.
 */
export function* groupPayloads(ranges: Iterable<Inputs>): Generator<GroupPayload> {
  let group: ConfirmedGroup | null = null
  for (const range of ranges) {
    const events: ChainWhaleEvent[] = []
    for (const input of range) for (const e of txEvents(decodeTx(input, WETH), CTX)) events.push(e)
    group ??= new ConfirmedGroup(1, 'ethereum', WATCHLIST, groupSizeHint(events.length, WRITE_EVENTS))
    group.add(events, null)
    if (group.events < WRITE_EVENTS) continue
    yield { events: group.events, payload: group.finish() }
    group = null
  }
  if (group !== null) yield { events: group.events, payload: group.finish() }
}
