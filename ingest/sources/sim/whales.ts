/**
 * @module
 * Whale transfers on the 8 chains. Per chain and 5-minute slot, up to two event groups start at hashed
 * times; a group is one of:
 * - a single transfer in or out (half of them with an exchange hot wallet) or a swap with a DEX;
 * - a multi-hop route: 2-4 `swap` legs in ONE transaction (same tx_hash, block and tracked address,
 *   consecutive log_index, same token, usd_value shrinking by fees);
 * - a wash loop: the same wallet sends the same token out and back in to one partner, 2-4 times, sizes
 *   within ±2.5% of each other, the whole loop inside 10 minutes, each leg its own transaction.
 * The last two are deliberate near-duplicates for dedup and wash detection downstream.
 * usd_value is $100k x e^(1.35|z|), capped at $50M; amount = usd_value / token price at ts.
 */
import type { WhaleTransferRecord } from '../../../engine/records/types.js'
import { base58Id, hexId } from './chain-ids.js'
import { gauss, hashKey, streamId, unit } from './hash-rng.js'
import type { RecordSink } from './record-sink.js'
import type { Emitter, SimContext } from './sim-context.js'
import {
  addressFor,
  CHAIN_SPECS,
  DEX_POOLS,
  EXCHANGE_WALLETS,
  REF_BLOCK_TS,
  TRACKED_WALLETS,
  type ChainSpec,
  type TokenSpec
} from './whale-wallets.js'

/** groups start at hashed times within these slots */
const GROUP_SLOT_MS = 300_000
/** candidate groups per slot (each with probability groupsPerDay / (2 x 288)) */
const CANDIDATES_PER_SLOT = 2
/** longest group (a 4-round wash loop: 8 legs, gaps <= 70 s); windows look back this far for legs */
const MAX_GROUP_SPAN_MS = 600_000
/** group mix: cumulative probabilities of single transfer, swap, multi-hop; the rest are wash loops */
const SINGLE_SHARE = 0.62
const SWAP_SHARE = 0.77
const MULTI_HOP_SHARE = 0.89
/** share of single transfers whose counterparty is an exchange hot wallet */
const EXCHANGE_SHARE = 0.5
const MIN_USD = 100_000
const MAX_USD = 50_000_000
/** log-spread of usd_value above the minimum: median ~$250k, 1 in 1000 above ~$8M */
const USD_LOG_SPREAD = 1.35
/** each multi-hop leg loses up to this share to pool fees and price impact */
const HOP_FEE = 0.003
/** wash-loop legs scatter within ±2.4% of the loop size, so any two legs are within 5% */
const WASH_SIZE_JITTER = 0.024
/** wash-loop legs follow each other after 25-70 s */
const WASH_MIN_GAP_MS = 25_000
const WASH_GAP_SPREAD_MS = 45_000
/** log indexes of single events fall in 0..399 (a busy block) */
const MAX_LOG_INDEX = 400
const TAG_GROUP = 80
/** draw index from which transaction-hash words are taken (16 words per leg) */
const TX_WORDS = 64

interface Group {
  readonly spec: ChainSpec
  readonly chainIndex: number
  readonly keyA: number
  readonly keyB: number
  readonly wallet: string
  readonly token: TokenSpec
  readonly usd: number
}

function pickToken(tokens: readonly TokenSpec[], u: number): TokenSpec {
  let acc = 0
  for (const t of tokens) {
    acc += t.weight
    if (u < acc) return t
  }
  return tokens[tokens.length - 1]!
}

export function createWhales(ctx: SimContext): Emitter {
  const { seed, universe, path } = ctx
  const priceIndex = new Map<string, number>()
  for (const spec of CHAIN_SPECS) {
    for (const t of spec.tokens)
      if (t.priceBase !== null) priceIndex.set(t.symbol, universe.baseIndex.get(t.priceBase)!)
  }

  function txHash(g: Group, leg: number): string {
    const first = TX_WORDS + 16 * leg
    return g.spec.evm ? hexId(g.keyA, g.keyB, first, 8) : base58Id(g.keyA, g.keyB, first, 16)
  }

  function leg(
    g: Group,
    ts: number,
    tx: string,
    logIndex: number,
    counterparty: string,
    eventType: WhaleTransferRecord['event_type'],
    usd: number
  ): WhaleTransferRecord {
    const bi = priceIndex.get(g.token.symbol)
    const price = bi === undefined ? 1 : path.at(bi, ts)
    return {
      kind: 'whale_transfer',
      ts,
      chain: g.spec.chain,
      tx_hash: tx,
      log_index: logIndex,
      block_number: Math.max(1, g.spec.refBlock + Math.floor((ts - REF_BLOCK_TS) / g.spec.blockMs)),
      address: g.wallet,
      counterparty,
      event_type: eventType,
      token: g.token.symbol,
      amount: Math.round((usd / price) * 1e6) / 1e6,
      usd_value: Math.round(usd * 100) / 100
    }
  }

  function emitGroup(g: Group, start: number, lo: number, hi: number, sink: RecordSink): void {
    const k = g.keyA
    const kind = unit(k, 2)
    if (kind < SWAP_SHARE) {
      if (start < lo || start >= hi) return
      const swap = kind >= SINGLE_SHARE
      const toExchange = unit(k, 7) < EXCHANGE_SHARE
      const exchanges = EXCHANGE_WALLETS[g.chainIndex]!
      const counterparty = swap
        ? DEX_POOLS[g.chainIndex]![Math.floor(unit(k, 8) * DEX_POOLS[g.chainIndex]!.length)]!
        : toExchange
          ? exchanges[Math.floor(unit(k, 8) * exchanges.length)]!.address
          : addressFor(g.spec.evm, k ^ 0x27d4eb2f, g.keyB)
      const eventType = swap ? 'swap' : unit(k, 9) < 0.5 ? 'transfer_in' : 'transfer_out'
      sink.push(leg(g, start, txHash(g, 0), Math.floor(unit(k, 10) * MAX_LOG_INDEX), counterparty, eventType, g.usd))
    } else if (kind < MULTI_HOP_SHARE) {
      if (start < lo || start >= hi) return
      const legs = 2 + Math.floor(unit(k, 7) * 3)
      const tx = txHash(g, 0)
      const firstLog = Math.floor(unit(k, 8) * MAX_LOG_INDEX)
      const pools = DEX_POOLS[g.chainIndex]!
      const firstPool = Math.floor(unit(k, 9) * pools.length)
      for (let i = 0; i < legs; i++) {
        const usd = g.usd * (1 - HOP_FEE * unit(k, 11 + i)) ** i
        sink.push(leg(g, start, tx, firstLog + i, pools[(firstPool + i) % pools.length]!, 'swap', usd))
      }
    } else {
      const rounds = 2 + Math.floor(unit(k, 7) * 3)
      const partner = addressFor(g.spec.evm, k ^ 0x165667b1, g.keyB)
      let ts = start
      for (let i = 0; i < 2 * rounds; i++) {
        if (i > 0) ts += WASH_MIN_GAP_MS + Math.floor(unit(k, 20 + i) * WASH_GAP_SPREAD_MS)
        if (ts < lo || ts >= hi) continue
        const usd = g.usd * (1 + WASH_SIZE_JITTER * (2 * unit(k, 30 + i) - 1))
        const logIndex = Math.floor(unit(k, 40 + i) * MAX_LOG_INDEX)
        sink.push(leg(g, ts, txHash(g, i), logIndex, partner, i % 2 === 0 ? 'transfer_out' : 'transfer_in', usd))
      }
    }
  }

  return {
    emit(lo, hi, _mode, sink) {
      const first = Math.floor((lo - MAX_GROUP_SPAN_MS) / GROUP_SLOT_MS)
      const last = Math.ceil(hi / GROUP_SLOT_MS) - 1
      const slotsPerDay = 86_400_000 / GROUP_SLOT_MS
      CHAIN_SPECS.forEach((spec, c) => {
        const p = spec.groupsPerDay / (slotsPerDay * CANDIDATES_PER_SLOT)
        const wallets = TRACKED_WALLETS[c]!
        for (let s = first; s <= last; s++) {
          for (let j = 0; j < CANDIDATES_PER_SLOT; j++) {
            const stream = streamId(TAG_GROUP, c * CANDIDATES_PER_SLOT + j)
            const keyA = hashKey(seed, stream, s)
            if (unit(keyA, 0) >= p) continue
            const start = s * GROUP_SLOT_MS + Math.floor(unit(keyA, 1) * GROUP_SLOT_MS)
            const group: Group = {
              spec,
              chainIndex: c,
              keyA,
              // a second, independent key: tx hashes and counterparties get 64 bits of identity
              keyB: hashKey(seed ^ 0x5bd1e995, stream, s),
              wallet: wallets[Math.floor(unit(keyA, 3) * wallets.length)]!,
              token: pickToken(spec.tokens, unit(keyA, 4)),
              usd: Math.min(MAX_USD, MIN_USD * Math.exp(USD_LOG_SPREAD * Math.abs(gauss(keyA, 5))))
            }
            emitGroup(group, start, lo, hi, sink)
          }
        }
      })
    }
  }
}
