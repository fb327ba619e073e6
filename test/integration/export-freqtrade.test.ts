/**
 * `GET /v1/backtest/export?layout=freqtrade` through the real server and socket: the archive is unpacked by
 * the system's `tar`, every feather file is read back with apache-arrow and compared with the JSON export of
 * the same range (candles) or with the funding readings ingested (funding_rate files, mark files), the manifest's
 * SHA-256, rows and gaps match the files, and the refusals answer 400 before any byte.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../cli/main.js'
import { pinnedRead } from '../../engine/export/pinned-parts.js'
import { startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import {
  expectedGaps,
  H0,
  HOUR,
  ingestFreqtradeData,
  MIN,
  READINGS,
  readFeather,
  type Manifest
} from '../helpers/freqtrade-export.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let pro = ''
const RANGE = `start_time=${H0}&end_time=${H0 + 5 * HOUR}`
const out = tmpDir()

const get = (p: string) => fetch(`${srv.base}${p}`, { headers: { 'x-api-key': pro } })

beforeAll(async () => {
  srv = await startTestServer()
  pro = (await srv.running.ctx.keys.create('pro', 'p')).key
  await ingestFreqtradeData(srv.base)
})
afterAll(async () => {
  await srv.stop()
  out.cleanup()
})

/** Downloads the archive, unpacks it with the system's tar into a fresh directory, returns that directory. */
async function unpack(query: string): Promise<{ dir: string; res: Response; manifest: Manifest }> {
  const res = await get(`/v1/backtest/export?${query}`)
  expect(
    res.status,
    await res
      .clone()
      .text()
      .catch(() => '')
  ).toBe(200)
  const dir = fs.mkdtempSync(path.join(out.dir, 'data-'))
  const archive = path.join(dir, '..', `${path.basename(dir)}.tar`)
  fs.writeFileSync(archive, Buffer.from(await res.arrayBuffer()))
  execFileSync('tar', ['-xf', archive, '-C', dir])
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'tidewatch-manifest.json'), 'utf8')) as Manifest
  return { dir, res, manifest }
}

type Row = Record<string, number | string>

async function jsonRows(query: string): Promise<Row[]> {
  const res = await get(`/v1/backtest/export?${query}&format=json`)
  expect(res.status).toBe(200)
  const text = (await res.text()).trim()
  return text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as Row)
}

describe('GET /v1/backtest/export?layout=freqtrade', () => {
  for (const [timeframe, step] of [
    ['1m', MIN],
    ['1h', HOUR]
  ] as const) {
    it(`${timeframe}: every candle file holds the JSON export's rows, dtypes as freqtrade writes them`, async () => {
      const q = `symbols=FTA,FTB,FTC&exchange=binance&timeframe=${timeframe}&${RANGE}`
      const { dir, res, manifest } = await unpack(`${q}&layout=freqtrade`)
      expect(res.headers.get('content-type')).toBe('application/x-tar')
      expect(res.headers.get('content-disposition')).toMatch(/_freqtrade_binance\.tar"$/)
      expect(manifest).toMatchObject({
        manifest_version: 1,
        layout: 'freqtrade',
        exchange: 'binance',
        timeframe,
        start: H0,
        end: H0 + 5 * HOUR,
        synthetic: false
      })
      const reference = await jsonRows(q)
      const candleFiles = manifest.files.filter((f) => f.candle_type === 'futures')
      expect(candleFiles.map((f) => f.path)).toEqual([
        `futures/FTA_USDT_USDT-${timeframe}-futures.feather`,
        `futures/FTB_USDT_USDT-${timeframe}-futures.feather`,
        `futures/FTC_USDT_USDT-${timeframe}-futures.feather`
      ])
      for (const f of candleFiles) {
        const rows = reference.filter((r) => r['symbol'] === f.symbol)
        const table = readFeather(path.join(dir, f.path))
        expect(table.schema.fields.map((x) => [x.name, String(x.type)])).toEqual([
          ['date', 'Timestamp<NANOSECOND, UTC>'],
          ['open', 'Float64'],
          ['high', 'Float64'],
          ['low', 'Float64'],
          ['close', 'Float64'],
          ['volume', 'Float64']
        ])
        expect(table.numRows, f.path).toBe(rows.length)
        expect(f.rows).toBe(rows.length)
        const got = table.toArray().map((r) => ({
          timestamp: Number(r.date),
          open: r.open as number,
          high: r.high as number,
          low: r.low as number,
          close: r.close as number,
          volume_base: r.volume as number
        }))
        expect(got).toEqual(
          rows.map((r) => ({
            timestamp: r['timestamp'],
            open: r['open'],
            high: r['high'],
            low: r['low'],
            close: r['close'],
            volume_base: r['volume_base']
          }))
        )
        // nanoseconds in the file, not milliseconds
        if (rows.length > 0) {
          const ns = table.getChild('date')!.data[0]!.values as BigInt64Array
          expect(ns[0]).toBe(BigInt(rows[0]!['timestamp'] as number) * 1_000_000n)
        }
        const times = rows.map((r) => r['timestamp'] as number)
        expect(f.first).toBe(times[0] ?? null)
        expect(f.last).toBe(times[times.length - 1] ?? null)
        expect(f.gaps).toEqual(expectedGaps(times, H0, H0 + 5 * HOUR, step))
      }
      expect(candleFiles.find((f) => f.symbol === 'FTCUSDT')!.rows).toBe(0)
      expect(candleFiles.find((f) => f.symbol === 'FTAUSDT')!.rows).toBeGreaterThan(0)
    })
  }

  it('funding_rate files: one row per settlement, the last reading of the hour before it', async () => {
    const { dir, manifest } = await unpack(
      `symbols=FTA,FTB,FTC&exchange=binance&timeframe=1h&${RANGE}&layout=freqtrade`
    )
    const funding = manifest.files.filter((f) => f.candle_type === 'funding_rate')
    expect(funding.map((f) => f.path)).toEqual([
      'futures/FTA_USDT_USDT-1h-funding_rate.feather',
      'futures/FTB_USDT_USDT-1h-funding_rate.feather',
      'futures/FTC_USDT_USDT-1h-funding_rate.feather'
    ])
    for (const f of funding) {
      const mine = READINGS.filter((r) => r.symbol === f.symbol)
      const expected: { date: number; open: number }[] = []
      for (let t = H0; t < H0 + 5 * HOUR; t += HOUR) {
        const before = mine.filter((r) => r.ts >= t - HOUR && r.ts < t)
        if (before.length > 0 && (t / HOUR) % before[0]!.interval === 0)
          expected.push({ date: t, open: before[before.length - 1]!.rate })
      }
      // missing settlements: the next is due one interval after the last (the first at the range's first one)
      const step = mine[0]!.interval * HOUR
      const gaps: { start: number; end: number }[] = []
      let due = Math.ceil(H0 / step) * step
      for (const e of expected) {
        if (e.date > due) gaps.push({ start: due, end: e.date })
        due = e.date + step
      }
      if (due < H0 + 5 * HOUR) gaps.push({ start: due, end: H0 + 5 * HOUR })
      const table = readFeather(path.join(dir, f.path))
      expect(
        table
          .toArray()
          .map((r) => ({ date: Number(r.date), open: r.open as number, rest: [r.high, r.low, r.close, r.volume] }))
      ).toEqual(expected.map((e) => ({ ...e, rest: [0, 0, 0, 0] })))
      expect(f.rows).toBe(expected.length)
      expect(f.gaps).toEqual(gaps)
    }
    // FTA settles at H0 only (8-hourly), FTB every hour but H0 + 2h; FTC has one reading, before H0
    expect(funding.map((f) => f.rows)).toEqual([1, 4, 1])
    expect(funding.map((f) => f.gaps)).toEqual([[], [{ start: H0 + 2 * HOUR, end: H0 + 3 * HOUR }], []])
  })

  it('mark files: hourly candles of the mark prices stored with the funding readings, at the funding hours', async () => {
    const { dir, manifest } = await unpack(
      `symbols=FTA,FTB,FTC&exchange=binance&timeframe=1m&${RANGE}&layout=freqtrade`
    )
    const mark = manifest.files.filter((f) => f.candle_type === 'mark')
    // FTC has no mark price: no file, as for a market without funding
    expect(mark.map((f) => f.path)).toEqual([
      'futures/FTA_USDT_USDT-1h-mark.feather',
      'futures/FTB_USDT_USDT-1h-mark.feather'
    ])
    for (const f of mark) {
      const expected: { date: number; open: number; high: number; low: number; close: number; volume: number }[] = []
      for (let t = H0; t < H0 + 5 * HOUR; t += HOUR) {
        const prices = READINGS.filter((r) => r.symbol === f.symbol && r.ts >= t && r.ts < t + HOUR && r.mark !== null)
          .sort((a, b) => a.ts - b.ts)
          .map((r) => r.mark!)
        if (prices.length === 0) continue
        expected.push({
          date: t,
          open: prices[0]!,
          high: Math.max(...prices),
          low: Math.min(...prices),
          close: prices[prices.length - 1]!,
          volume: 0
        })
      }
      const table = readFeather(path.join(dir, f.path))
      expect(table.schema.fields.map((x) => [x.name, String(x.type)])).toEqual([
        ['date', 'Timestamp<NANOSECOND, UTC>'],
        ['open', 'Float64'],
        ['high', 'Float64'],
        ['low', 'Float64'],
        ['close', 'Float64'],
        ['volume', 'Float64']
      ])
      const got = table.toArray().map((r) => ({
        date: Number(r.date),
        open: r.open as number,
        high: r.high as number,
        low: r.low as number,
        close: r.close as number,
        volume: r.volume as number
      }))
      expect(got, f.path).toEqual(expected)
      expect(f.timeframe).toBe('1h')
      expect(f.rows).toBe(expected.length)
      const times = expected.map((e) => e.date)
      expect(f.first).toBe(times[0])
      expect(f.last).toBe(times[times.length - 1])
      expect(f.gaps).toEqual(expectedGaps(times, H0, H0 + 5 * HOUR, HOUR))
    }
    // FTA: readings through H0 + 4h40m, every hour covered; FTB: none in [H0 + 1h, H0 + 2h)
    expect(mark.map((f) => f.rows)).toEqual([5, 4])
    expect(mark[1]!.gaps).toEqual([{ start: H0 + HOUR, end: H0 + 2 * HOUR }])
    // freqtrade joins funding and mark rows on date: every settlement has its mark candle but FTB's at
    // H0 + 1h, whose hour has no reading
    const dates = (f: Manifest['files'][number]) =>
      readFeather(path.join(dir, f.path))
        .toArray()
        .map((r) => Number(r.date))
    const unmatched = manifest.files
      .filter((x) => x.candle_type === 'funding_rate' && x.symbol !== 'FTCUSDT')
      .map((f) => {
        const have = new Set(dates(mark.find((m) => m.symbol === f.symbol)!))
        return dates(f).filter((d) => !have.has(d))
      })
    expect(unmatched).toEqual([[], [H0 + HOUR]])
  })

  it('the manifest holds each file SHA-256 and size, and lists every file of the archive', async () => {
    const { dir, manifest } = await unpack(`symbols=FTA,FTB&exchange=binance&timeframe=1m&${RANGE}&layout=freqtrade`)
    const listed = fs.readdirSync(path.join(dir, 'futures')).sort()
    expect(manifest.files.map((f) => f.path.slice('futures/'.length)).sort()).toEqual(listed)
    for (const f of manifest.files) {
      const bytes = fs.readFileSync(path.join(dir, f.path))
      expect(createHash('sha256').update(bytes).digest('hex'), f.path).toBe(f.sha256)
      expect(bytes.length).toBe(f.bytes)
      // Arrow IPC file (feather v2) magic at both ends
      expect(bytes.subarray(0, 6).toString('latin1')).toBe('ARROW1')
      expect(bytes.subarray(bytes.length - 6).toString('latin1')).toBe('ARROW1')
    }
  })

  it('the same files once the tables are merged and read pinned, without FINAL', async () => {
    const q = `symbols=FTA,FTB,FTC&exchange=binance&timeframe=1h&${RANGE}&layout=freqtrade`
    const before = (await unpack(q)).manifest.files.map((f) => [f.path, f.sha256])
    const store = srv.running.ctx.store
    for (const table of ['candles_1h', 'funding_1h']) await store.command(`OPTIMIZE TABLE ${table} FINAL`)
    const from = H0 / 1000 - 3600
    for (const table of ['candles_1h', 'funding_1h']) {
      expect((await pinnedRead(store, table, from, from + 6 * 3600)).parts.length, table).toBeGreaterThan(0)
    }
    const after = (await unpack(q)).manifest.files.map((f) => [f.path, f.sha256])
    expect(after).toEqual(before)
    expect(after).toHaveLength(8)
  })

  it('HEAD answers the headers of the archive', async () => {
    const res = await fetch(
      `${srv.base}/v1/backtest/export?symbols=FTA&exchange=binance&timeframe=1h&${RANGE}&layout=freqtrade`,
      { method: 'HEAD', headers: { 'x-api-key': pro } }
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/x-tar')
  })

  describe('refusals (400 before any byte)', () => {
    const refused = async (query: string): Promise<{ message: string; param?: string }> => {
      const res = await get(`/v1/backtest/export?${query}`)
      expect(res.status, query).toBe(400)
      return ((await res.json()) as { error: { message: string; param?: string } }).error
    }
    const base = `symbols=FTA&timeframe=1h&${RANGE}`

    it('an unknown layout names the layouts', async () => {
      const e = await refused(`${base}&exchange=binance&layout=nautilus`)
      expect(e.message).toBe('layout must be one of tidewatch, freqtrade')
    })
    it('layout=freqtrade without exchange says why one is needed', async () => {
      const e = await refused(`${base}&layout=freqtrade`)
      expect(e.param).toBe('exchange')
      expect(e.message).toMatch(/one data directory per exchange/)
    })
    it('layout=freqtrade with a format other than arrow', async () => {
      const e = await refused(`${base}&exchange=binance&layout=freqtrade&format=csv`)
      expect(e.param).toBe('format')
      expect(e.message).toMatch(/feather/)
    })
    it('a market freqtrade cannot name (multiplier name, stored per coin)', async () => {
      const e = await refused(`symbols=FTD&timeframe=1h&${RANGE}&exchange=binance&layout=freqtrade`)
      expect(e.param).toBe('symbols')
      expect(e.message).toMatch(/cannot name 1000FTDUSDT on binance/)
    })
    it('the default layout still needs a format', async () => {
      const e = await refused(base)
      expect(e.param).toBe('format')
    })
  })

  describe('tidewatch export --layout freqtrade', () => {
    const cli = async (dir: string, symbols: string): Promise<{ code: number; stderr: string }> => {
      let stderr = ''
      const io = { out: () => undefined, err: (t: string) => void (stderr += t) }
      const argv = ['export', '--symbols', symbols, '--timeframe', '1h', '--lookback', '3d', '--layout', 'freqtrade']
      const code = await main([...argv, '--exchange', 'binance', '--out', dir, '--key', pro, '--url', srv.base], {}, io)
      return { code, stderr }
    }

    it('unpacks the data directory: the files of the manifest, checked, readable, replacing older ones', async () => {
      const dir = path.join(out.dir, 'user_data', 'data', 'binance')
      fs.mkdirSync(path.join(dir, 'futures'), { recursive: true })
      const stale = path.join(dir, 'futures', 'FTA_USDT_USDT-1h-futures.feather')
      fs.writeFileSync(stale, 'older download')
      const kept = path.join(dir, 'futures', 'ETH_USDT_USDT-1h-futures.feather')
      fs.writeFileSync(kept, 'another pair')
      const r = await cli(dir, 'FTA,FTB')
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/wrote 6 files \([\d,]+ rows\) and tidewatch-manifest\.json to /)
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'tidewatch-manifest.json'), 'utf8')) as Manifest
      expect(manifest.files.map((f) => f.path)).toEqual([
        'futures/FTA_USDT_USDT-1h-futures.feather',
        'futures/FTB_USDT_USDT-1h-futures.feather',
        'futures/FTA_USDT_USDT-1h-funding_rate.feather',
        'futures/FTB_USDT_USDT-1h-funding_rate.feather',
        'futures/FTA_USDT_USDT-1h-mark.feather',
        'futures/FTB_USDT_USDT-1h-mark.feather'
      ])
      for (const f of manifest.files) {
        const bytes = fs.readFileSync(path.join(dir, f.path))
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256)
        expect(tableFromIPC(bytes).numRows).toBe(f.rows)
      }
      expect(manifest.files[0]!.rows).toBe(5) // the five hours of trades
      expect(fs.readFileSync(kept, 'utf8')).toBe('another pair')
      expect(fs.readdirSync(dir).sort()).toEqual(['futures', 'tidewatch-manifest.json'])
    })

    it('on a refusal writes nothing and says why', async () => {
      const dir = path.join(out.dir, 'refused')
      const r = await cli(dir, 'FTD')
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/cannot name 1000FTDUSDT on binance/)
      expect(fs.readdirSync(dir)).toEqual([])
    })
  })
})
