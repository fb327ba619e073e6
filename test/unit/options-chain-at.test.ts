/**
 * The chain at T (engine/options/chain-at.ts): the newest snapshot at or before T minus expired instruments,
 * the same whether folded quote by quote (the live book) or picked from any set of stored quotes, and the
 * same digits whatever the order the quotes came in.
 */
import { describe, expect, it } from 'vitest'
import { CHAIN_LOOKBACK_MS, chainAt, SnapshotFold, summarizeSnapshot } from '../../engine/options/chain-at.js'
import { OptionsBook } from '../../engine/live/options-book.js'
import { formatExpiryCode } from '../../engine/options/instrument.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'
import { mulberry32 } from '../helpers/mulberry32.js'

const DAY = 86_400_000
const T0 = Date.UTC(2026, 5, 1, 6)
const EXPIRY_SOON = Date.UTC(2026, 5, 1, 8)
const EXPIRY_LATER = Date.UTC(2026, 5, 5, 8)

function quote(instrument: string, ts: number, open_interest: number, underlying_price = 3000): OptionQuoteRecord {
  return {
    kind: 'option_quote',
    ts,
    exchange: 'deribit',
    instrument,
    underlying_price,
    mark_price: 0.01,
    open_interest,
    volume_24h: 1
  }
}
const name = (expiry: number, strike: number, t: 'C' | 'P'): string => `ETH-${formatExpiryCode(expiry)}-${strike}-${t}`

describe('the chain at T', () => {
  it('is the newest snapshot at or before T: delisted instruments leave, expired ones drop at their expiry', () => {
    const old = [quote(name(EXPIRY_LATER, 2500, 'P'), T0, 10), quote(name(EXPIRY_SOON, 3000, 'C'), T0, 5)]
    const next = [
      quote(name(EXPIRY_LATER, 3500, 'C'), T0 + 60_000, 7),
      quote(name(EXPIRY_SOON, 3000, 'C'), T0 + 60_000, 6)
    ]
    const all = [...old, ...next]
    expect(chainAt(all, 'ETH', T0 + 30_000).total_put_oi).toBe(10)
    const at = chainAt(all, 'ETH', T0 + 60_000)
    expect([at.total_call_oi, at.total_put_oi]).toEqual([13, 0]) // the 2500 put is delisted
    expect(chainAt(all, 'ETH', EXPIRY_SOON).total_call_oi).toBe(7) // the soon expiry has expired
    expect(chainAt(all, 'ETH', T0 + 60_000 + CHAIN_LOOKBACK_MS).total_call_oi).toBe(0) // too old
    expect(chainAt(all, 'ETH', T0 - 1).updated).toBe(0)
  })

  it('folds like the live book: newer replaces, the same time adds, older is ignored', () => {
    const f = new SnapshotFold()
    expect(f.add(quote(name(EXPIRY_LATER, 2500, 'P'), T0, 1))).toBe(true)
    expect(f.add(quote(name(EXPIRY_LATER, 2600, 'P'), T0, 2))).toBe(true)
    expect(f.quotes.size).toBe(2)
    expect(f.add(quote(name(EXPIRY_LATER, 2600, 'P'), T0 - 1, 9))).toBe(false)
    expect(f.add(quote(name(EXPIRY_LATER, 2700, 'P'), T0 + 1, 3))).toBe(true)
    expect([...f.quotes.keys()]).toEqual([name(EXPIRY_LATER, 2700, 'P')])
  })

  it('gives the same digits for the live book, the stored-quotes form and any input order', () => {
    const rnd = mulberry32(7)
    const quotes: OptionQuoteRecord[] = []
    for (let s = 0; s < 3; s++) {
      for (const expiry of [EXPIRY_SOON, EXPIRY_LATER, EXPIRY_LATER + 7 * DAY]) {
        for (let k = 2000; k <= 4000; k += 50) {
          for (const t of ['C', 'P'] as const) {
            quotes.push(quote(name(expiry, k, t), T0 + s * 60_000, Math.round(rnd() * 1000) / 10, 2990 + (expiry % 7)))
          }
        }
      }
    }
    const at = T0 + 2 * 60_000 + 10_000
    const expected = JSON.stringify(chainAt(quotes, 'ETH', at))
    for (let i = 0; i < 5; i++) {
      const shuffled = [...quotes].sort(() => rnd() - 0.5)
      expect(JSON.stringify(chainAt(shuffled, 'ETH', at))).toBe(expected)
      const book = new OptionsBook()
      for (let j = 0; j < shuffled.length; j += 97) book.apply(shuffled.slice(j, j + 97))
      expect(book.chainJson('ETH', at).toString()).toBe(expected)
      const last = shuffled.filter((q) => q.ts === T0 + 2 * 60_000)
      expect(JSON.stringify(summarizeSnapshot(last, 'ETH', at))).toBe(expected)
    }
  })
})
