/**
 * The whale window's per-base rows kept up to date as rows arrive, and the 24 h inputs reused while a
 * base's window holds the same rows (engine/live/whale-base-rows.ts): every read equals, to the bit, a
 * scan of every row in the window's order (by time, then arrival), as a window filled at once reads them.
 */
import { describe, expect, it } from 'vitest'
import { WhaleWindow } from '../../engine/live/whale-window.js'
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { EXCHANGE_HOT_WALLETS, isExchangeWallet } from '../../engine/whales/exchange-wallets.js'
import { whaleBase } from '../../engine/live/whale-window.js'
import { mulberry32 } from '../helpers/mulberry32.js'

const DAY = 86_400_000
const NOW = Date.now()
const TOKENS = ['WETH', 'ETH', 'WBTC', 'BTC', 'SOL', 'USDC']
const EVENTS = ['transfer_in', 'transfer_out', 'swap'] as const
const WALLETS = [
  ...Array.from({ length: 4 }, (_, i) => `0x${String(i).padStart(40, '0')}`),
  EXCHANGE_HOT_WALLETS.ethereum[0]!.address
]

function rows(rand: () => number, n: number, first: number): WhaleTransferRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'whale_transfer',
    // from 8 days back (older than the window) to 1 h ahead, in no order; some on one shared ms
    ts: rand() < 0.2 ? NOW - 60_000 : NOW - Math.floor(rand() * 8 * DAY) + 3_600_000,
    chain: 'ethereum',
    tx_hash: `0x${String(first + i).padStart(64, '0')}`,
    log_index: 0,
    block_number: first + i,
    address: WALLETS[Math.floor(rand() * WALLETS.length)]!,
    counterparty: '0xcp',
    event_type: EVENTS[Math.floor(rand() * EVENTS.length)]!,
    token: TOKENS[Math.floor(rand() * TOKENS.length)]!,
    amount: 1,
    // of many magnitudes: a sum in another order differs in its last bits
    usd_value: rand() * 10 ** Math.floor(rand() * 9)
  }))
}

/** Rows sorted by time, then arrival: the window's order. */
function windowOrder(all: readonly WhaleTransferRecord[]): WhaleTransferRecord[] {
  return all
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.ts - b.r.ts || a.i - b.i)
    .map((x) => x.r)
}

/** The 24 h inputs by a scan of every row in the window's order, summed in that order. */
function scan(order: readonly WhaleTransferRecord[], base: string, nowMs: number) {
  const perWallet = new Map<string, number>()
  let seen = false
  for (const r of order) {
    if (r.ts < nowMs - DAY || r.ts > nowMs || r.event_type === 'swap' || whaleBase(r.token) !== base) continue
    if (isExchangeWallet(r.address)) continue
    seen = true
    perWallet.set(r.address, (perWallet.get(r.address) ?? 0) + (r.event_type === 'transfer_in' ? 1 : -1) * r.usd_value)
  }
  let net = 0
  for (const v of perWallet.values()) net += v
  const values = [...perWallet.values()]
  return {
    net: seen ? net : null,
    longs: values.filter((v) => v > 0).length,
    shorts: values.filter((v) => v < 0).length
  }
}

describe('whale window: rows indexed as they arrive', () => {
  it("every read equals a scan of the rows in the window's order, to the bit", () => {
    for (const seed of [35_101, 35_102, 35_103]) {
      const rand = mulberry32(seed)
      const live = new WhaleWindow()
      const all: WhaleTransferRecord[] = []
      for (let batch = 0; batch < 40; batch++) {
        // batch 20 is larger than the index takes row by row (a bulk load: the index is rebuilt)
        const batchRows = rows(rand, batch === 20 ? 1_200 : 1 + Math.floor(rand() * 60), all.length)
        live.apply(batchRows)
        all.push(...batchRows)
        const order = windowOrder(all)
        // reads at moving moments, twice each (the second may reuse the first's figures)
        for (const nowMs of [NOW, NOW - Math.floor(rand() * DAY), NOW]) {
          for (const base of ['ETH', 'BTC', 'SOL', 'USDC', 'DOGE']) {
            const expected = scan(order, base, nowMs)
            expect(live.flows24h(base, nowMs), `seed ${seed} batch ${batch} ${base}`).toEqual(expected)
            expect(live.flows24h(base, nowMs)).toEqual(expected)
          }
        }
      }
    }
  })

  it('a read after a row of the base arrived, or one left the 24 h, counts it', () => {
    const w = new WhaleWindow()
    const row = rows(mulberry32(1), 1, 0)[0]!
    const inRow = { ...row, ts: NOW - 1_000, token: 'WETH', event_type: 'transfer_in' as const, address: WALLETS[0]! }
    w.apply([inRow])
    expect(w.flows24h('ETH', NOW)).toEqual({ net: inRow.usd_value, longs: 1, shorts: 0 })
    w.apply([{ ...inRow, ts: NOW - 2_000, event_type: 'transfer_out', address: WALLETS[1]! }])
    expect(w.flows24h('ETH', NOW)).toEqual({ net: 0, longs: 1, shorts: 1 })
    // a day later the older row has left the 24 h and the newer one is still in them
    expect(w.flows24h('ETH', NOW - 1_500 + DAY)).toEqual({ net: inRow.usd_value, longs: 1, shorts: 0 })
  })
})
