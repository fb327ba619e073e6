import { describe, expect, it } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { BybitNormalizer } from '../../ingest/normalize/bybit.js'
import { WS_CHANNEL } from '../../ingest/normalize/normalizer.js'
import {
  MarketTrades,
  RECENT_IDS,
  RECONNECT_CHANNEL,
  RecentIds,
  missedRows,
  type ReconnectGaps
} from '../../ingest/normalize/trade-window.js'
import { recentTradeRow, recentTradesBody, tradeMessage, tradeRow } from '../helpers/venues/bybit-fixtures.js'

const ref = (id: string, ts: number): { id: string; ts: number } => ({ id, ts })
const ids = (rows: readonly { id: string }[]): string[] => rows.map((r) => r.id)

describe('missedRows', () => {
  const page = [ref('a', 10), ref('b', 11), ref('c', 12), ref('d', 12), ref('e', 13), ref('f', 14)]

  it('takes the rows strictly between the anchor and the first trade after the reopen', () => {
    const r = missedRows(page, ref('b', 11), ref('e', 13), new RecentIds())
    expect(ids(r.rows)).toEqual(['c', 'd'])
    expect(r.reachedBack).toBe(true)
  })

  it('without an upper bound takes every newer row not seen; seen ids are skipped', () => {
    const recent = new RecentIds()
    recent.add('e', 13)
    expect(ids(missedRows(page, ref('b', 11), null, recent).rows)).toEqual(['c', 'd', 'f'])
  })

  it('a page that does not hold the anchor and starts after it has not reached back', () => {
    const r = missedRows(page.slice(3), ref('b', 11), null, new RecentIds())
    expect(ids(r.rows)).toEqual(['d', 'e', 'f'])
    expect(r.reachedBack).toBe(false)
    expect(missedRows([], ref('b', 11), null, new RecentIds()).reachedBack).toBe(false)
  })

  it('falls back to trade time for bounds missing from the page', () => {
    // anchor id unknown at 12: rows from 12 on; `after` unknown at 13: rows up to 13
    const r = missedRows(page, ref('x', 12), ref('y', 13), new RecentIds())
    expect(ids(r.rows)).toEqual(['c', 'd', 'e'])
    expect(r.reachedBack).toBe(true)
  })

  it('with full recent ids and no upper bound, rows older than the oldest remembered are left out', () => {
    const recent = new RecentIds()
    for (let i = 0; i < RECENT_IDS; i++) recent.add(`r${i}`, 12 + i)
    expect(recent.full).toBe(true)
    expect(ids(missedRows(page, ref('a', 10), null, recent).rows)).toEqual(['c', 'd', 'e', 'f'])
  })
})

describe('MarketTrades windows', () => {
  it('a market that never traded opens no window; one that did opens one, closed by its page', () => {
    const m = new MarketTrades()
    expect(m.reopen()).toBe(false)
    m.accept('a', 10, true)
    expect(m.reopen()).toBe(true)
    m.accept('d', 13, true) // first socket trade after the reopen
    expect(ids(m.fill([ref('a', 10), ref('b', 11), ref('c', 12), ref('d', 13)])!.rows)).toEqual(['b', 'c'])
    expect(m.fill([ref('a', 10)])).toBeNull()
  })

  it('a second reopen before the page widens the window: same anchor, no upper bound', () => {
    const m = new MarketTrades()
    m.accept('a', 10, true)
    m.reopen()
    m.accept('c', 12, true)
    m.reopen()
    const page = [ref('a', 10), ref('b', 11), ref('c', 12), ref('d', 13)]
    expect(ids(m.fill(page)!.rows)).toEqual(['b', 'd'])
  })
})

describe('Bybit reconnect windows in the normalizer', () => {
  const events: string[] = []
  const gaps: ReconnectGaps = {
    opened: (s) => events.push(`opened ${s}`),
    served: (s, n, back) => events.push(`served ${s} ${n} ${back}`)
  }
  const path = '/v5/market/recent-trade?category=linear&symbol=1000PEPEUSDT&limit=1000'
  const rows = [0, 1, 2, 3].map((i) => tradeRow('1000PEPEUSDT', 1_000 + i, 'Buy', '1000', '0.0201', `p-${i}`))

  it('maps a recovered row exactly like the same trade from the socket', () => {
    const viaSocket: NormalizedRecord[] = []
    new BybitNormalizer().normalize(WS_CHANNEL, tradeMessage('1000PEPEUSDT', 1_001, [rows[1]!]), 0, viaSocket)

    const n = new BybitNormalizer(gaps)
    const out: NormalizedRecord[] = []
    n.normalize(WS_CHANNEL, tradeMessage('1000PEPEUSDT', 1_000, [rows[0]!]), 0, out)
    expect(n.normalize(RECONNECT_CHANNEL, { symbols: ['1000PEPEUSDT', 'ORDIUSDT'] }, 0, out)).toBe('control')
    n.normalize(WS_CHANNEL, tradeMessage('1000PEPEUSDT', 1_003, [rows[3]!]), 0, out)
    const page = recentTradesBody([...rows].reverse().map(recentTradeRow), 2_000)
    expect(n.normalize(path, page, 0, out)).toBe('ok')
    expect(out.map((r) => (r as { trade_id: string }).trade_id)).toEqual(['p-0', 'p-3', 'p-1', 'p-2'])
    expect(out[2]).toEqual(viaSocket[0])
    expect(events).toEqual(['opened 1000PEPEUSDT', 'served 1000PEPEUSDT 2 true'])
    // a page with no open window adds nothing; the socket repeating a recovered trade is a duplicate
    expect(n.normalize(path, page, 0, out)).toBe('ok')
    expect(n.normalize(WS_CHANNEL, tradeMessage('1000PEPEUSDT', 1_002, [rows[2]!]), 0, out)).toBe('duplicate')
    expect(out).toHaveLength(4)
  })

  it('an error answer instead of the page closes the window as unfilled', () => {
    events.length = 0
    const n = new BybitNormalizer(gaps)
    n.normalize(WS_CHANNEL, tradeMessage('1000PEPEUSDT', 1_000, [rows[0]!]), 0, [])
    n.normalize(RECONNECT_CHANNEL, { symbols: ['1000PEPEUSDT'] }, 0, [])
    const error = { retCode: 10006, retMsg: 'Too many visits!', result: {}, retExtInfo: {}, time: 1 }
    expect(n.normalize(path, error, 0, [])).toBe('error')
    expect(events).toEqual(['opened 1000PEPEUSDT', 'served 1000PEPEUSDT 0 false'])
  })
})
