/**
 * The confirmation model's whale inputs (WhaleWindow.flows24h): net USD per wallet over 24 h, wallets
 * accumulating and distributing, with labelled exchange wallets left out (their side of a deposit or a
 * withdrawal would cancel the whale's side).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { WhaleWindow } from '../../engine/live/whale-window.js'
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { mulberry32 } from '../helpers/mulberry32.js'
import { EXCHANGE_HOT_WALLETS, setWatchedExchangeWallets } from '../../engine/whales/exchange-wallets.js'
import { CHAINS } from '../../catalog/chains.js'
import { tokensOf } from '../../engine/history/whale-assets.js'

const NOW = Date.now()
const EXCHANGE = '0x00000000000000000000000000000000000e0c01'
const WHALE = '0x00000000000000000000000000000000000a1e01'
const OTHER = '0x00000000000000000000000000000000000a1e02'

function row(address: string, counterparty: string, event: WhaleTransferRecord['event_type'], usd: number, i: number) {
  return {
    kind: 'whale_transfer',
    ts: NOW - 60_000 * i,
    chain: 'ethereum',
    tx_hash: `0x${String(i).padStart(64, '0')}`,
    log_index: i,
    block_number: 100 + i,
    address,
    counterparty,
    event_type: event,
    token: 'WETH',
    amount: usd / 3000,
    usd_value: usd
  } satisfies WhaleTransferRecord
}

afterEach(() => setWatchedExchangeWallets([]))

describe('whale inputs of the confirmation model', () => {
  it('a withdrawal from a watched exchange wallet counts the whale accumulating, not the exchange distributing', () => {
    const w = new WhaleWindow()
    // the chain source reports both sides of the transfer: the exchange's transfer_out, the whale's transfer_in
    w.apply([row(EXCHANGE, WHALE, 'transfer_out', 5_000_000, 1), row(WHALE, EXCHANGE, 'transfer_in', 5_000_000, 2)])
    expect(w.flows24h('ETH', NOW)).toEqual({ net: 0, longs: 1, shorts: 1 }) // not labelled: both are wallets
    setWatchedExchangeWallets([{ address: EXCHANGE, owner: 'Binance' }])
    expect(w.flows24h('ETH', NOW)).toEqual({ net: 5_000_000, longs: 1, shorts: 0 })
  })

  it("leaves out the demo market's labelled hot wallets too, and keeps other wallets", () => {
    const hot = EXCHANGE_HOT_WALLETS.ethereum[0]!.address
    const w = new WhaleWindow()
    w.apply([
      row(hot, WHALE, 'transfer_in', 2_000_000, 1),
      row(WHALE, hot, 'transfer_out', 2_000_000, 2),
      row(OTHER, WHALE, 'transfer_in', 700_000, 3)
    ])
    expect(w.flows24h('ETH', NOW)).toEqual({ net: -1_300_000, longs: 1, shorts: 1 })
  })

  it('is null when only exchange wallets moved the asset', () => {
    setWatchedExchangeWallets([{ address: EXCHANGE, owner: 'Binance' }])
    const w = new WhaleWindow()
    w.apply([row(EXCHANGE, WHALE, 'transfer_out', 1_000_000, 1)])
    expect(w.flows24h('ETH', NOW)).toEqual({ net: null, longs: 0, shorts: 0 })
  })
})

describe('which coin a whale transfer counts for', () => {
  it("every EVM chain's wrapped native (from the catalog) and the bridged forms count as their coin, as in the whale history", () => {
    const forms: [string, string][] = [
      ['BTCB', 'BTC'],
      ['CBBTC', 'BTC'],
      ['WBTC', 'BTC'],
      ['WMATIC', 'POL'],
      ['WSOL', 'SOL']
    ]
    for (const c of CHAINS) if (c.evm) forms.push([c.evm.wrappedSymbol, c.evm.nativeSymbol])
    for (const [token, coin] of forms) {
      const w = new WhaleWindow()
      w.apply([{ ...row(WHALE, OTHER, 'transfer_in', 3_000_000, 1), token }])
      expect(w.flows24h(coin, NOW), `${token} counts for ${coin}`).toEqual({ net: 3_000_000, longs: 1, shorts: 0 })
      expect(w.flows24h(token, NOW).longs, `${token} is not a base of its own`).toBe(0)
      expect(tokensOf(coin)).toContain(token)
    }
  })

  it('any other token counts for itself', () => {
    const w = new WhaleWindow()
    w.apply([{ ...row(WHALE, OTHER, 'transfer_in', 1_000_000, 1), token: 'USDT' }])
    expect(w.flows24h('USDT', NOW)).toEqual({ net: 1_000_000, longs: 1, shorts: 0 })
    expect(w.flows24h('ETH', NOW).longs).toBe(0)
  })
})

describe('whale window reads', () => {
  it('flows24h and since equal a scan of every row (rows arriving out of order, older than 24 h, after now)', () => {
    const seed = 35_004
    const rand = mulberry32(seed)
    const w = new WhaleWindow()
    const all: WhaleTransferRecord[] = []
    const tokens = ['WETH', 'ETH', 'WBTC', 'BTC', 'SOL']
    const events = ['transfer_in', 'transfer_out', 'swap'] as const
    for (let batch = 0; batch < 20; batch++) {
      const rows: WhaleTransferRecord[] = []
      for (let i = 0; i < 50; i++) {
        const n = batch * 50 + i
        rows.push({
          ...row(rand() < 0.5 ? WHALE : OTHER, EXCHANGE, events[Math.floor(rand() * 3)]!, Math.round(rand() * 1e6), n),
          // from 3 days back to 1 h ahead of NOW, in no order
          ts: NOW - Math.floor(rand() * 3 * 86_400_000) + 3_600_000,
          token: tokens[Math.floor(rand() * tokens.length)]!
        })
      }
      w.apply(rows)
      all.push(...rows)
    }
    const inDay = all.filter((r) => r.ts >= NOW - 86_400_000 && r.ts <= NOW)
    for (const base of ['ETH', 'BTC', 'SOL']) {
      const perWallet = new Map<string, number>()
      const wrapped: Record<string, string> = { WETH: 'ETH', WBTC: 'BTC' }
      for (const r of inDay) {
        if ((wrapped[r.token] ?? r.token) !== base || r.event_type === 'swap') continue
        perWallet.set(
          r.address,
          (perWallet.get(r.address) ?? 0) + (r.event_type === 'transfer_in' ? 1 : -1) * r.usd_value
        )
      }
      const values = [...perWallet.values()]
      const expected = {
        net: values.length ? values.reduce((a, b) => a + b, 0) : null,
        longs: values.filter((v) => v > 0).length,
        shorts: values.filter((v) => v < 0).length
      }
      const got = w.flows24h(base, NOW)
      expect({ ...got, net: got.net === null ? null : Math.round(got.net) }, `seed ${seed}, ${base}`).toEqual({
        ...expected,
        net: expected.net === null ? null : Math.round(expected.net)
      })
    }
    // a row applied after a read is in the next read; a reset forgets every row
    const sol = w.flows24h('SOL', NOW)
    w.apply([{ ...row(OTHER, EXCHANGE, 'transfer_in', 1_000, 9_999), token: 'SOL', ts: NOW - 1_000 }])
    expect(w.flows24h('SOL', NOW).net, `seed ${seed}`).toBeCloseTo((sol.net ?? 0) + 1_000, 3)
    const sortedDay = [...inDay, ...w.since(NOW - 1_000, NOW - 1_000)].sort((a, b) => a.ts - b.ts)
    expect(
      w.since(NOW - 86_400_000, NOW).map((r) => r.ts),
      `seed ${seed}`
    ).toEqual(sortedDay.map((r) => r.ts))
  })
})
