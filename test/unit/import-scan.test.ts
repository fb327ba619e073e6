/**
 * The import's byte-level pieces: cell checks, header sniffing and µs detection in the scanner, hour
 * slices (including rows out of order), base/quote from symbols, the progress line.
 */
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { checkCell, intBound } from '../../ingest/import/csv-cells.js'
import { CsvScanner, type LineSink } from '../../ingest/import/csv-scan.js'
import { binanceLayout } from '../../ingest/import/binance-vision.js'
import { SliceWriter } from '../../ingest/import/slices.js'
import {
  sizesInContracts,
  splitConcatenated,
  splitTardisSymbol,
  tardisCoin,
  tardisVenue
} from '../../ingest/import/symbols.js'
import { cascadeOf } from '../../ingest/import/coverage.js'
import { progressText } from '../../cli/import-progress.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const cell = (check: Parameters<typeof checkCell>[0], text: string, chType?: string) =>
  checkCell(
    check,
    Buffer.from(text),
    0,
    text.length,
    chType && (check === 'uint' || check === 'int') ? intBound(check, chType) : undefined
  )

describe('cell checks', () => {
  it('accepts and refuses what the layouts need', () => {
    expect([
      cell('udec', '12'),
      cell('udec', '0.5'),
      cell('udec', '.5'),
      cell('udec', '1e-8'),
      cell('udec', '1.5E+3')
    ]).toEqual([null, null, null, null, null])
    expect(
      [cell('udec', '-1'), cell('udec', ''), cell('udec', '1.2.3'), cell('udec', 'abc'), cell('udec', '1e')].every(
        (p) => p !== null
      )
    ).toBe(true)
    expect([cell('dec', '-0.0001'), cell('int', '-5'), cell('uint', '0')]).toEqual([null, null, null])
    expect([cell('bool', 'True'), cell('bool', 'false'), cell('side', 'SELL')]).toEqual([null, null, null])
    expect(
      [cell('bool', 'yes'), cell('side', 'unknown'), cell('word', ''), cell('word', '"x"')].every((p) => p !== null)
    ).toBe(true)
    expect([cell('datetime', '2024-06-03 00:05:00'), cell('datetime', '2024-06-03T00:05:00')]).toEqual([
      null,
      expect.any(String)
    ])
  })

  it('holds an integer to its column type: an empty cell, a sign or a value past the type is refused', () => {
    const u64 = 'must be a non-negative integer up to 18446744073709551615'
    expect([
      cell('uint', '18446744073709551615'),
      cell('uint', '000000000000000000000018446744073709551615'),
      cell('uint', '0'),
      cell('uint', '255', 'UInt8'),
      cell('uint', '7', 'Nullable(UInt64)')
    ]).toEqual([null, null, null, null, null])
    expect([
      cell('uint', ''),
      cell('uint', '18446744073709551616'),
      cell('uint', '99999999999999999999999'),
      cell('uint', '-1'),
      cell('uint', '+1')
    ]).toEqual([u64, u64, u64, u64, u64])
    expect(cell('uint', '256', 'UInt8')).toBe('must be a non-negative integer up to 255')
    const i64 = 'must be an integer from -9223372036854775808 to 9223372036854775807'
    expect([cell('int', '-9223372036854775808'), cell('int', '9223372036854775807'), cell('int', '-0')]).toEqual([
      null,
      null,
      null
    ])
    expect([
      cell('int', '-9223372036854775809'),
      cell('int', '9223372036854775808'),
      cell('int', '-'),
      cell('int', '')
    ]).toEqual([i64, i64, i64, i64])
    expect([cell('int', '-128', 'Int8'), cell('int', '-129', 'Int8'), cell('int', '128', 'Int8')]).toEqual([
      null,
      'must be an integer from -128 to 127',
      'must be an integer from -128 to 127'
    ])
  })
})

function scan(text: string, chunkSize = 7): { lines: string[]; ms: number[]; rows: number } {
  const { layout } = binanceLayout('f', { symbol: 'BTCUSDT', dataType: 'aggTrades' }, text.split('\n')[0]!, undefined)
  const lines: string[] = []
  const ms: number[] = []
  let buf: Buffer = Buffer.alloc(0)
  const sink: LineSink = {
    begin: (b) => (buf = b),
    line: (t, s, e) => (ms.push(t), lines.push(buf.toString('utf8', s, e))),
    end: () => {}
  }
  const scanner = new CsvScanner('f', layout, sink)
  const bytes = Buffer.from(text)
  for (let i = 0; i < bytes.length; i += chunkSize) scanner.push(bytes.subarray(i, i + chunkSize))
  return { lines, ms, rows: scanner.finish().rows }
}

describe('scanner', () => {
  it('skips a header, reads headerless files, tells µs from ms per row, keeps lines whole across chunks', () => {
    const rows = ['1,10.5,1,1,1,1704067200000,true', '2,10.5,1,2,2,1704067200001123,false']
    const withHeader = scan(
      `agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\n${rows.join('\n')}`
    )
    expect(withHeader).toEqual({ lines: [rows[0] + '\n', rows[1] + '\n'], ms: [1704067200000, 1704067200001], rows: 2 })
    expect(scan(rows.join('\r\n') + '\r\n', 3).ms).toEqual([1704067200000, 1704067200001])
  })

  it('names the line of a bad row', () => {
    expect(() => scan('1,10.5,1,1,1,1704067200000,true\n2,-3,1,1,1,1704067200000,true\n')).toThrow(
      /f, line 2: price must be a non-negative number/
    )
    expect(() => scan('1,10.5,1,1,1,9999999999999999999,true\n')).toThrow(/line 1: transact_time is not a time/)
  })
})

describe('slices', () => {
  let tmp: ReturnType<typeof tmpDir> | undefined
  afterEach(() => tmp?.cleanup())

  it('cut at hour boundaries after the row target, rows out of order go to their hour slice', () => {
    tmp = tmpDir()
    const w = new SliceWriter(tmp.dir, 2)
    const H = 3_600_000
    const times = [0, 1000, 2000, H, H + 1, 2 * H, 1500, 3 * H]
    const buf = Buffer.from(times.map((t) => `${t}\n`).join(''))
    w.begin(buf)
    let at = 0
    for (const t of times) {
      const len = `${t}\n`.length
      w.line(t, at, at + len)
      at += len
    }
    w.end()
    w.close()
    const content = w.slices.map((s) => fs.readFileSync(s.file, 'utf8').trim().split('\n').map(Number))
    // slice 2 has 1 row when hour 3 comes: it takes it
    expect(content).toEqual([
      [0, 1000, 2000, 1500],
      [H, H + 1],
      [2 * H, 3 * H]
    ])
    expect(w.slices.map((s) => s.startHour)).toEqual([0, 1, 2])
  })
})

describe('symbols and venues', () => {
  it('splits Binance and Tardis symbols', () => {
    expect(splitConcatenated('BTCUSDT')).toEqual({ base: 'BTC', quote: 'USDT' })
    expect(splitConcatenated('1000PEPEUSDC')).toEqual({ base: '1000PEPE', quote: 'USDC' })
    expect(splitConcatenated('BTCUSD_240329')).toEqual({ base: 'BTC', quote: 'USD' })
    expect(splitConcatenated('XYZ')).toBeNull()
    expect(splitTardisSymbol('BTC-PERPETUAL')).toEqual({ base: 'BTC', quote: 'USD' })
    expect(splitTardisSymbol('ETH_USDC-PERPETUAL')).toEqual({ base: 'ETH', quote: 'USDC' })
    expect(splitTardisSymbol('BTC-USDT-SWAP')).toEqual({ base: 'BTC', quote: 'USDT' })
    expect(tardisVenue('binance-futures')).toEqual({ exchange: 'binance', market: 'perp' })
    expect(tardisVenue('binance')).toEqual({ exchange: 'binance-spot', market: 'spot' })
  })

  it('converts multiplier perpetuals per venue as the live normalizers do; spot bases are coins', () => {
    expect(tardisCoin('binance-futures', '1000PEPE')).toEqual({ base: 'PEPE', multiplier: 1000 })
    expect(tardisCoin('binance-futures', '1MBABYDOGE')).toEqual({ base: 'BABYDOGE', multiplier: 1_000_000 })
    expect(tardisCoin('bybit', 'SHIB1000')).toEqual({ base: 'SHIB', multiplier: 1000 })
    expect(tardisCoin('bybit', '10000LADYS')).toEqual({ base: 'LADYS', multiplier: 10_000 })
    expect(tardisCoin('binance-futures', '1INCH')).toEqual({ base: '1INCH', multiplier: 1 })
    expect(tardisCoin('binance', '1000SATS')).toEqual({ base: '1000SATS', multiplier: 1 })
    expect(tardisCoin('bybit-spot', '1000PEPE')).toEqual({ base: '1000PEPE', multiplier: 1 })
    const perp = (symbol: string) => binanceLayout('f', { symbol, dataType: '1m' }, '', undefined).params
    const spot = (symbol: string) => binanceLayout('f', { symbol, dataType: '1m' }, '', 'spot').params
    expect(perp('1000PEPEUSDT')).toMatchObject({ symbol: '1000PEPEUSDT', base: 'PEPE', mult: 1000 })
    expect(perp('BTCUSDT')).toMatchObject({ base: 'BTC', mult: 1 })
    expect(spot('1000SATSUSDT')).toMatchObject({ exchange: 'binance-spot', base: '1000SATS', mult: 1 })
    expect([sizesInContracts('okex-swap'), sizesInContracts('okex'), sizesInContracts('bybit')]).toEqual([
      true,
      false,
      false
    ])
  })

  it('knows the candle cascade', () => {
    expect(cascadeOf('1m')).toEqual(['5m', '15m', '1h', '4h', '1d', '1w', '1mo'])
    expect(cascadeOf('1h')).toEqual(['4h', '1d', '1w', '1mo'])
    expect(cascadeOf('5m')).toEqual([])
  })
})

it('draws a progress line', () => {
  expect(
    progressText({
      file: '/x/BTCUSDT-aggTrades-2024-01-01.zip',
      index: 1,
      files: 3,
      phase: 'reading',
      fraction: 0.5,
      rows: 1234567
    })
  ).toBe('[############............] 2/3 BTCUSDT-aggTrades-2024-01-01.zip reading 1,234,567 rows')
})
