import { describe, expect, it } from 'vitest'
import { quoteCurrency } from '../../engine/options/chain-at.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { livePieces } from '../../ingest/sources/sim/live-pieces.js'
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'

/** a minute boundary: the demo market's window that carries funding, open interest and the option chains */
const MINUTE_WINDOW = Date.UTC(2025, 2, 10, 12, 0)

function liveWindow(from: number): NormalizedRecord[] {
  const out: NormalizedRecord[] = []
  for (const chunk of createSimMarket(42).generate(from, from + 1000, 'live')) out.push(...chunk)
  return out
}

/** the key of a record's chain snapshot (currency and time), or null for other kinds */
const snapshotOf = (r: NormalizedRecord): string | null =>
  r.kind === 'option_quote' ? `${quoteCurrency(r.instrument)}@${r.ts}` : null

describe('livePieces: a live window in pieces for the main thread', () => {
  it('keeps every record in order, bounds pieces, and never cuts one currency’s chain snapshot', () => {
    const records = liveWindow(MINUTE_WINDOW)
    const snapshots = new Set(records.map(snapshotOf).filter((s) => s !== null))
    // the window this rule is for: both currencies' chains and more records than one piece
    expect(snapshots.size).toBe(2)
    expect(records.length).toBeGreaterThan(1000)
    const pieces = livePieces(records, 256)
    expect(pieces.flat()).toEqual(records)
    expect(pieces.length).toBeGreaterThanOrEqual(5)
    for (const s of snapshots) {
      const holding = pieces.filter((p) => p.some((r) => snapshotOf(r) === s))
      expect(holding, s).toHaveLength(1)
    }
    // a piece beyond the bound is one snapshot's run, plus at most what preceded it below the bound
    for (const p of pieces) {
      if (p.length <= 256) continue
      const held = new Set(p.map(snapshotOf).filter((s) => s !== null))
      expect(held.size).toBe(1)
      expect(p.filter((r) => snapshotOf(r) === null).length).toBeLessThan(256)
    }
  })

  it('sends a window within the bound as it is, and nothing for an empty one', () => {
    const records = liveWindow(MINUTE_WINDOW + 1000)
    expect(records.length).toBeGreaterThan(0)
    expect(records.length).toBeLessThanOrEqual(256)
    expect(livePieces(records, 256)).toEqual([records])
    expect(livePieces(records, 256)[0]).toBe(records)
    expect(livePieces([], 256)).toEqual([])
  })

  it('cuts between two currencies’ snapshots and between two snapshots of one currency', () => {
    const quote = (instrument: string, ts: number): NormalizedRecord => ({
      kind: 'option_quote',
      ts,
      exchange: 'deribit',
      instrument,
      underlying_price: 1,
      mark_price: 0.1,
      open_interest: 0,
      volume_24h: 0
    })
    const btc = [quote('BTC-1JAN27-1-C', 1), quote('BTC-1JAN27-2-C', 1)]
    const btcLater = [quote('BTC-1JAN27-1-C', 2), quote('BTC-1JAN27-2-C', 2)]
    const eth = [quote('ETH-1JAN27-1-C', 1), quote('ETH-1JAN27-2-C', 1)]
    expect(livePieces([...btc, ...eth], 1)).toEqual([btc, eth])
    expect(livePieces([...btc, ...btcLater], 1)).toEqual([btc, btcLater])
  })
})
