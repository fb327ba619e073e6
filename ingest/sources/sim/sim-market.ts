/**
 * @module
 * The deterministic demo market (source `sim`): synthetic but plausible records of every normalized kind
 * over a fixed universe (190 bases, ~520 perpetuals on binance/bybit/okx, Deribit BTC/ETH options,
 * whale flows on 8 chains, hourly on-chain metrics).
 *
 * Guarantees:
 * - determinism: same seed and same (fromMs, toMs, mode) give the same records in the same order;
 * - additivity: [a, b) then [b, c) give exactly the records of [a, c) (order aside), because every
 *   draw is keyed by (seed, stream, time slot) and each record is kept by its own ts;
 * - `backfill` mode is the history density (30 days ~ 7M records), `live` the dense near-real-time one
 *   (~100 records per second on average, an options snapshot every minute). Liquidations, whale
 *   transfers and on-chain metrics are events, identical in both modes.
 */
import type { NormalizedRecord } from '../../../engine/records/types.js'
import { mixSeed } from './hash-rng.js'
import { createOnchain } from './onchain.js'
import { createOptions } from './options.js'
import { createPerps } from './perps.js'
import { PricePath } from './price-path.js'
import { RecordSink } from './record-sink.js'
import type { Emitter, SimContext, SimMode } from './sim-context.js'
import { limitMarkets, UNIVERSE, type PerpMarket } from './universe.js'
import { createWhales } from './whales.js'

export type { PerpMarket } from './universe.js'
export type { SimMode } from './sim-context.js'

export interface SimMarket {
  readonly seed: number
  readonly markets: readonly PerpMarket[]
  /** every record with fromMs <= ts < toMs, in chunks of at most CHUNK_RECORDS records; deterministic */
  generate(fromMs: number, toMs: number, mode: SimMode): Generator<NormalizedRecord[]>
  /** the mid price of a base asset at time t (USD), same path every venue and the options index use */
  price(base: string, t: number): number
}

/** records per yielded chunk: large enough to amortise a store insert, small enough to stay ~1 MB */
export const CHUNK_RECORDS = 8_192
/** windows are generated an hour at a time, which bounds memory to one hour of records plus one chunk */
const BLOCK_MS = 3_600_000

/** windows must lie in 2000..2098: Deribit names carry two-digit years, and quarterlies list months ahead */
const MIN_WINDOW_MS = Date.UTC(2000, 0, 1)
const MAX_WINDOW_MS = Date.UTC(2099, 0, 1)

function checkWindow(fromMs: number, toMs: number, mode: SimMode): void {
  if (!(fromMs >= MIN_WINDOW_MS && toMs <= MAX_WINDOW_MS)) {
    throw new RangeError(`fromMs and toMs must be epoch milliseconds in 2000..2098, got ${fromMs} and ${toMs}`)
  }
  if (mode !== 'backfill' && mode !== 'live') throw new RangeError(`mode must be backfill or live, got ${String(mode)}`)
}

function* generateChunks(emitters: readonly Emitter[], fromMs: number, toMs: number, mode: SimMode) {
  const sink = new RecordSink(CHUNK_RECORDS)
  for (let block = Math.floor(fromMs / BLOCK_MS) * BLOCK_MS; block < toMs; block += BLOCK_MS) {
    const lo = Math.max(fromMs, block)
    const hi = Math.min(toMs, block + BLOCK_MS)
    for (const e of emitters) e.emit(lo, hi, mode, sink)
    yield* sink.takeFull()
  }
  const rest = sink.takeRest()
  if (rest !== undefined) yield rest
}

/**
 * The demo market of `seed`; `maxMarkets` keeps only that many perpetual markets, the most liquid
 * (universe.ts `limitMarkets`: smaller shapes for tests and benchmarks); absent: all of them.
 */
export function createSimMarket(seed: number, maxMarkets?: number): SimMarket {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`)
  const universe = maxMarkets === undefined ? UNIVERSE : limitMarkets(UNIVERSE, maxMarkets)
  const path = new PricePath(mixSeed(seed), universe.bases)
  const ctx: SimContext = { seed: mixSeed(seed), universe, path }
  const emitters: readonly Emitter[] = [createPerps(ctx), createOptions(ctx), createWhales(ctx), createOnchain(ctx)]
  return {
    seed,
    markets: universe.markets,
    generate(fromMs, toMs, mode) {
      // validated here, not inside the generator, so a bad call throws at once rather than on first next()
      checkWindow(fromMs, toMs, mode)
      return generateChunks(emitters, fromMs, toMs, mode)
    },
    price(base, t) {
      const bi = universe.baseIndex.get(base)
      if (bi === undefined) throw new RangeError(`unknown base asset ${base}`)
      if (!Number.isFinite(t)) throw new RangeError(`t must be finite epoch milliseconds, got ${t}`)
      return path.at(bi, t)
    }
  }
}
