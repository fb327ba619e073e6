/**
 * The pieces of the freqtrade layout without a store: freqtrade's names (pair, file, timeframe; the cases
 * freqtrade's `pair_to_filename` and `_pair_data_filename` define), the refusals, the tar framing read back
 * by the CLI's reader at every chunk boundary, the gap tracker, and feather files of several batches read
 * back by apache-arrow.
 */
import { describe, expect, it } from 'vitest'
import { Schema, tableFromIPC } from 'apache-arrow'
import { SYNTHETIC_METADATA } from '../../engine/export/formats.js'
import { ApiError } from '../../engine/errors.js'
import {
  checkFreqtradeTimeframe,
  freqtradeFilePath,
  freqtradePair,
  pairToFilename
} from '../../engine/export/freqtrade/names.js'
import { TAR_END, tarHeader, tarPadding } from '../../engine/export/freqtrade/tar.js'
import { FeatherWriter, FREQTRADE_SCHEMA } from '../../engine/export/freqtrade/feather-file.js'
import { GapTracker } from '../../engine/export/freqtrade/gaps.js'
import { TarReader, type TarEntry } from '../../cli/tar-reader.js'

const bytesOf = (a: Float64Array | BigInt64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)

describe('freqtrade names', () => {
  it('pairs of the perpetual venues as CCXT writes them', () => {
    expect(freqtradePair({ base: 'BTC', exchange: 'binance', symbol: 'BTCUSDT' })).toBe('BTC/USDT:USDT')
    expect(freqtradePair({ base: 'ETH', exchange: 'bybit', symbol: 'ETHUSDC' })).toBe('ETH/USDC:USDC')
    expect(freqtradePair({ base: 'SOL', exchange: 'okx', symbol: 'SOL-USDT-SWAP' })).toBe('SOL/USDT:USDT')
    expect(freqtradePair({ base: 'XRP', exchange: 'bitget', symbol: 'XRPUSDT' })).toBe('XRP/USDT:USDT')
  })

  it('refuses what freqtrade cannot name, saying why', () => {
    const refusal = (m: { base: string; exchange: string; symbol: string }) => {
      try {
        freqtradePair(m)
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError)
        expect((err as ApiError).status).toBe(400)
        return (err as ApiError).message
      }
      throw new Error('not refused')
    }
    expect(refusal({ base: 'PEPE', exchange: 'binance', symbol: '1000PEPEUSDT' })).toMatch(
      /cannot name 1000PEPEUSDT on binance: .*multiplier/
    )
    expect(refusal({ base: 'BTC', exchange: 'binance-spot', symbol: 'BTCUSDT' })).toMatch(/USD-margined perpetuals/)
    expect(refusal({ base: 'BTC', exchange: 'okx', symbol: 'BTC-USD-SWAP' })).toMatch(/BTC-USDT-SWAP/)
  })

  it('file names: pair_to_filename, 1M as 1Mo, futures/ and the candle type', () => {
    expect(pairToFilename('BTC/USDT:USDT')).toBe('BTC_USDT_USDT')
    expect(pairToFilename('A.B/C D@E$F+G')).toBe('A_B_C_D_E_F_G')
    expect(freqtradeFilePath('BTC/USDT:USDT', '1h', 'futures')).toBe('futures/BTC_USDT_USDT-1h-futures.feather')
    expect(freqtradeFilePath('ETH/USDT:USDT', '1M', 'futures')).toBe('futures/ETH_USDT_USDT-1Mo-futures.feather')
    expect(freqtradeFilePath('ETH/USDT:USDT', '1h', 'funding_rate')).toBe(
      'futures/ETH_USDT_USDT-1h-funding_rate.feather'
    )
  })

  it('timeframes freqtrade names pass, others answer 400', () => {
    for (const tf of ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M']) checkFreqtradeTimeframe(tf)
    expect(() => checkFreqtradeTimeframe('10m')).toThrow(/cannot write timeframe 10m: freqtrade \(CCXT\) names only/)
  })
})

describe('tar framing', () => {
  it('headers, padding and end read back by the CLI reader at every chunk size', async () => {
    const a = new TextEncoder().encode('x'.repeat(700))
    const b = new TextEncoder().encode('hello')
    const archive = Buffer.concat([
      tarHeader('futures/', 0, 1_700_000_000, '5'),
      tarHeader('futures/A-1h-futures.feather', a.length, 1_700_000_000),
      a,
      tarPadding(a.length),
      tarHeader('tidewatch-manifest.json', b.length, 1_700_000_000),
      b,
      tarPadding(b.length),
      TAR_END
    ])
    expect(archive.length % 512).toBe(0)
    for (const size of [1, 7, 512, 513, 4096]) {
      const seen: { entry: TarEntry; text: string }[] = []
      let current = ''
      const reader = new TarReader({
        begin: async (entry) => void seen.push({ entry, text: '' }),
        data: async (bytes) => void (current += Buffer.from(bytes).toString()),
        end: async () => {
          seen[seen.length - 1] = { ...seen[seen.length - 1]!, text: current }
          current = ''
        }
      })
      for (let i = 0; i < archive.length; i += size) await reader.push(archive.subarray(i, i + size))
      reader.finish()
      expect(seen.map((s) => [s.entry.name, s.entry.type, s.entry.size, s.text.length])).toEqual([
        ['futures/', 'directory', 0, 0],
        ['futures/A-1h-futures.feather', 'file', 700, 700],
        ['tidewatch-manifest.json', 'file', 5, 5]
      ])
      expect(seen[2]!.text).toBe('hello')
    }
  })

  it('a cut-short archive and a damaged header are errors', async () => {
    const whole = Buffer.concat([tarHeader('a', 3, 0), Buffer.from('abc'), tarPadding(3), TAR_END])
    const cut = new TarReader({ begin: async () => {}, data: async () => {}, end: async () => {} })
    await cut.push(whole.subarray(0, 600))
    expect(() => cut.finish()).toThrow(/ends before/)
    const damaged = Buffer.from(whole)
    damaged[0] = 0x62 // the name changes, the checksum does not
    const bad = new TarReader({ begin: async () => {}, data: async () => {}, end: async () => {} })
    await expect(bad.push(damaged)).rejects.toThrow(/checksum/)
  })

  it('names longer than 100 bytes are refused, not split', () => {
    expect(() => tarHeader('x'.repeat(101), 0, 0)).toThrow(/1 to 100/)
  })
})

describe('feather files', () => {
  it('several batches and an empty file read back with apache-arrow', () => {
    const writer = new FeatherWriter(FREQTRADE_SCHEMA)
    const n = 5
    const date = BigInt64Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000 + i * 3_600_000) * 1_000_000n)
    const cols = [1, 2, 3, 4, 5].map((k) => Float64Array.from({ length: n }, (_, i) => k * 100 + i + 0.25))
    const file = writer.file([
      { rows: 2, columns: [bytesOf(date.subarray(0, 2)), ...cols.map((c) => bytesOf(c.subarray(0, 2)))] },
      { rows: 3, columns: [bytesOf(date.subarray(2)), ...cols.map((c) => bytesOf(c.subarray(2)))] }
    ])
    const bytes = Buffer.concat(file.chunks)
    expect(bytes.length).toBe(file.size)
    expect(file.rows).toBe(5)
    const table = tableFromIPC(bytes)
    expect(table.batches).toHaveLength(2)
    expect(table.toArray().map((r) => [Number(r.date), r.open, r.volume])).toEqual(
      Array.from({ length: n }, (_, i) => [1_700_000_000_000 + i * 3_600_000, 100 + i + 0.25, 500 + i + 0.25])
    )
    const empty = tableFromIPC(Buffer.concat(writer.file([]).chunks))
    expect(empty.numRows).toBe(0)
    expect(empty.schema.fields.map((f) => f.name)).toEqual(['date', 'open', 'high', 'low', 'close', 'volume'])
  })
})

describe('synthetic label', () => {
  it('a schema with tidewatch.synthetic keeps it in the file', () => {
    const schema = new Schema(FREQTRADE_SCHEMA.fields, new Map(SYNTHETIC_METADATA))
    const table = tableFromIPC(Buffer.concat(new FeatherWriter(schema).file([]).chunks))
    expect(table.schema.metadata.get('tidewatch.synthetic')).toBe('true')
  })
})

describe('gaps', () => {
  it('missing buckets inside the range, merged, including before the first and after the last row', () => {
    const g = new GapTracker(0, 10, { n: 1, unit: 'm' })
    const MIN = 60_000
    const t = new GapTracker(0, 10 * MIN, { n: 1, unit: 'm' })
    for (const m of [2, 3, 6]) t.see(m * MIN)
    expect(t.finish()).toEqual([
      { start: 0, end: 2 * MIN },
      { start: 4 * MIN, end: 6 * MIN },
      { start: 7 * MIN, end: 10 * MIN }
    ])
    expect(g.finish()).toEqual([{ start: 0, end: 10 }])
  })

  it('runs of rows: whole runs at once, holes inside a run left to the row-by-row path', () => {
    const MIN = 60_000
    const runs = new GapTracker(0, 20 * MIN, { n: 1, unit: 'm' })
    const rows = new GapTracker(0, 20 * MIN, { n: 1, unit: 'm' })
    expect(runs.seeRun(2 * MIN, 5 * MIN, 4)).toBe(true) // 2..5 without a hole
    expect(runs.seeRun(6 * MIN, 9 * MIN, 3)).toBe(false) // 6, ?, 9: a hole inside
    for (const m of [6, 8, 9]) runs.see(m * MIN)
    expect(runs.seeRun(12 * MIN, 12 * MIN, 1)).toBe(true)
    for (const m of [2, 3, 4, 5, 6, 8, 9, 12]) rows.see(m * MIN)
    expect(runs.finish()).toEqual(rows.finish())
    expect(rows.gaps).toEqual([
      { start: 0, end: 2 * MIN },
      { start: 7 * MIN, end: 8 * MIN },
      { start: 10 * MIN, end: 12 * MIN },
      { start: 13 * MIN, end: 20 * MIN }
    ])
    // calendar spans (months) always go row by row
    expect(new GapTracker(0, 10, { n: 1, unit: 'M' }).seeRun(0, 0, 1)).toBe(false)
  })
})
