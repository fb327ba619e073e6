/**
 * The examples in examples/ run as a user runs them (examples/README.md), against a started server over real
 * sockets: the candle pullers (TypeScript to Parquet, Python standard library to CSV) walk a fixed 90-day
 * range of hourly candles by cursor in several pages and write exactly the rows the JSON API answers; the
 * webhook receivers (Node and Python) serve TLS, verify both signatures of a real signed test delivery, print
 * its event once, and refuse a delivery whose signature does not match with 401; the CCXT-style bot places
 * the order /v1/confirm lets through, scaled by its size_mult, and none for a SKIP; the freqtrade strategy's
 * `confirm_trade_entry` (freqtrade not installed: the module guards its import) answers a backtest at a candle's
 * close time with the confirm history's answer at that step and live with the live answer.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import https from 'node:https'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { trustInProcess } from '../helpers/trust-in-process.js'
import { until } from '../helpers/until.js'
import { makeTestCa, type TestCa } from '../helpers/webhook-receiver.js'

const HOUR = 3_600_000
const DAYS = 90
const ROOT = path.resolve(import.meta.dirname, '../..')
const HOOK_SECRET = 'examples-webhook-secret-0123456789'

let srv: Awaited<ReturnType<typeof startTestServer>>
let ca: TestCa
let untrust: () => void
let tmp: ReturnType<typeof tmpDir>
let key: string
const children: ChildProcess[] = []
/** the range's end, on the hour, a little in the past so the last candle is closed */
const END = Math.floor(Date.now() / HOUR) * HOUR - HOUR
const START = END - DAYS * 24 * HOUR

/** Starts an example; resolves with its stdout lines so far (live) and the URL it printed on stderr, if any. */
function run(cmd: string, args: string[], env: Record<string, string>) {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  const out: string[] = []
  let err = ''
  let partial = ''
  child.stdout!.on('data', (c: Buffer) => {
    const lines = (partial + c.toString()).split('\n')
    partial = lines.pop()!
    out.push(...lines)
  })
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const exited = new Promise<number>((r) => child.on('exit', (code) => r(code ?? -1)))
  return { out, stderr: () => err, exited }
}

const env = () => ({ TIDEWATCH_URL: srv.base, TIDEWATCH_KEY: key, END_MS: String(END), PAGE_LIMIT: '500' })

/** The candles of the range as the JSON API answers them, one page. */
async function expected(): Promise<Record<string, number>[]> {
  const url = `${srv.base}/v1/historical/ohlcv?symbol=BTC&timeframe=1h&start_time=${START}&end_time=${END}&limit=10000`
  const body = await jsonBody(await fetch(url, { headers: { 'x-api-key': key } }))
  expect(body.next_cursor).toBeNull()
  return body.data
}

beforeAll(async () => {
  ca = makeTestCa()
  untrust = trustInProcess(ca.ca)
  tmp = tmpDir('tw-examples-')
  fs.writeFileSync(path.join(tmp.dir, 'cert.pem'), ca.cert)
  fs.writeFileSync(path.join(tmp.dir, 'key.pem'), ca.key)
  srv = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '5000' })
  // two trades an hour over the range, a gap of a day in the middle (pages hold fewer candles there)
  const m = { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', market: 'perp', quote: 'USDT' } as const
  const trades = []
  for (let t = START, i = 0; t < END; t += HOUR, i++) {
    if (i >= 1000 && i < 1024) continue
    const price = 60_000 + ((i * 7919) % 5000)
    trades.push({ ...m, ts: t + 60_000, side: 'buy', price, qty: 0.5 + (i % 3), trade_id: `a${i}` })
    trades.push({ ...m, ts: t + 1_800_000, side: 'sell', price: price + 12.5, qty: 0.25, trade_id: `b${i}` })
  }
  await ingestRecords(srv.base, 'trade', trades)
  // funding that crowds longs a day into the range and shorts a day later: the confirm answers differ
  const f = { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', interval_hours: 8 } as const
  await ingestRecords(srv.base, 'funding', [
    { ...f, ts: START + 24 * HOUR, funding_rate: 0.002 },
    { ...f, ts: START + 48 * HOUR, funding_rate: -0.002 }
  ])
  await ingestRecords(srv.base, 'long_short', [
    { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', ts: START + 24 * HOUR, long_short_ratio: 3 },
    { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', ts: START + 48 * HOUR, long_short_ratio: 0.4 }
  ])
  const created = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    body: JSON.stringify({ plan: 'pro', name: 'examples' })
  })
  key = (await jsonBody(created)).key
  await until('the candles of the range', async () => (await expected()).length === DAYS * 24 - 24, 50_000)
}, 120_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill()
  await srv?.stop()
  untrust?.()
  ca?.cleanup()
  tmp?.cleanup()
})

describe('examples: candle pullers', () => {
  it('candles-to-parquet walks the range by cursor and writes every candle once, as the API answers it', async () => {
    const file = path.join(tmp.dir, 'btc-1h.parquet')
    const p = run('node', ['dist/examples/candles-to-parquet.js', 'BTC', '1h', String(DAYS), file], env())
    expect(await p.exited, p.stderr()).toBe(0)
    // 2,160 hours in pages of 500 buckets
    expect(p.out[0]).toBe(`${DAYS * 24 - 24} candles in 5 pages written to ${file}`)
    // read back by an independent reader: the ClickHouse engine's own Parquet input
    const rows = await srv.running.ctx.store.query<Record<string, number>>(
      `SELECT toUnixTimestamp64Milli(timestamp) AS timestamp, open, high, low, close, volume_base, volume_quote, trades
       FROM file('${file.replace(/'/g, "''")}', Parquet)`
    )
    const want = await expected()
    expect(rows).toHaveLength(want.length)
    rows.forEach((r, i) => {
      for (const k of ['timestamp', 'open', 'high', 'low', 'close', 'volume_base', 'volume_quote', 'trades']) {
        expect(Number(r[k]), `${k} of candle ${i}`).toBe(want[i]![k])
      }
    })
  })

  it('pull_candles.py (standard library) writes the same candles to CSV', async () => {
    const file = path.join(tmp.dir, 'btc-1h.csv')
    const p = run('python3', ['examples/python/pull_candles.py', 'BTC', '1h', String(DAYS), file], env())
    expect(await p.exited, p.stderr()).toBe(0)
    expect(JSON.parse(p.out[0]!)).toEqual({ rows: DAYS * 24 - 24, pages: 5, file })
    const [head, ...lines] = fs.readFileSync(file, 'utf8').trim().split(/\r?\n/)
    const cols = head!.split(',')
    const want = await expected()
    expect(lines).toHaveLength(want.length)
    lines.forEach((line, i) => {
      const cells = line.split(',')
      cols.forEach((c, j) => expect(Number(cells[j]), `${c} of candle ${i}`).toBe(want[i]![c]))
    })
  })
})

/** Registers a webhook for `url`, sends the signed test delivery, and returns its answer. */
async function testDelivery(url: string) {
  const api = (p: string, body: unknown) =>
    fetch(`${srv.base}${p}`, { method: 'POST', headers: { 'x-api-key': key }, body: JSON.stringify(body) })
  const reg = await jsonBody(await api('/v1/webhooks', { url, events: ['*'], symbols: ['*'], secret: HOOK_SECRET }))
  expect(reg.webhook_id, JSON.stringify(reg)).toBeGreaterThan(0)
  return jsonBody(await api('/v1/webhooks/test', { webhook_id: reg.webhook_id }))
}

/** POSTs a body with a wrong X-Service-Signature to the receiver; resolves with the status. */
function forged(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        ca: ca.ca,
        headers: {
          'content-type': 'application/json',
          'x-service-signature': '0'.repeat(64),
          'webhook-id': 'msg_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA'
        }
      },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      }
    )
    req.on('error', reject)
    req.end('{"event":"TEST","symbol":"BTC"}')
  })
}

describe('examples: webhook receivers', () => {
  for (const [name, cmd, args] of [
    ['webhook-receiver.ts (Node)', 'node', ['dist/examples/webhook-receiver.js']],
    ['webhook_receiver.py (Python standard library)', 'python3', ['examples/python/webhook_receiver.py']]
  ] as const) {
    it(`${name} verifies both signatures of a real delivery and refuses a forged one`, async () => {
      const p = run(cmd, [...args], {
        TIDEWATCH_WEBHOOK_SECRET: HOOK_SECRET,
        PORT: '0',
        TLS_CERT: path.join(tmp.dir, 'cert.pem'),
        TLS_KEY: path.join(tmp.dir, 'key.pem')
      })
      await until('the receiver to listen', () => /listening on https:\/\/\S+/.test(p.stderr()), 30_000)
      const url = /listening on (https:\/\/\S+)/.exec(p.stderr())![1]!
      const answer = await testDelivery(url)
      expect(answer, JSON.stringify(answer)).toMatchObject({ delivered: true, status_code: 200 })
      await until('the verified event printed', () => p.out.length > 0, 30_000)
      expect(JSON.parse(p.out[0]!)).toMatchObject({
        delivery_id: answer.delivery_id,
        event: 'TEST',
        symbol: 'BTC',
        confidence: 'TEST'
      })
      expect(await forged(url)).toBe(401)
      expect(p.out).toHaveLength(1)
    })
  }
})

describe('examples: CCXT-style bot', () => {
  // ETH on Binance: shorts paying longs heavily and accounts 1:2.5 short, so the contrarian derivatives
  // score argues for a long; the short is the exact negation and answers SKIP
  const m = { exchange: 'binance', symbol: 'ETHUSDT', base: 'ETH' } as const
  beforeAll(async () => {
    const now = Date.now()
    await ingestRecords(srv.base, 'funding', [{ ...m, ts: now - 60_000, funding_rate: -0.002, interval_hours: 8 }])
    await ingestRecords(srv.base, 'long_short', [{ ...m, ts: now - 60_000, long_short_ratio: 0.4 }])
    await until(
      'the ETH long confirmed',
      async () => {
        const c = await jsonBody(
          await fetch(`${srv.base}/v1/confirm?symbol=ETH&direction=long`, { headers: { 'x-api-key': key } })
        )
        return c.action !== 'SKIP'
      },
      30_000
    )
  })

  it('ccxt-confirm-bot places the confirmed order scaled by size_mult and no order for a SKIP', async () => {
    const answer = async (direction: string) =>
      jsonBody(
        await fetch(`${srv.base}/v1/confirm?symbol=ETH&direction=${direction}`, { headers: { 'x-api-key': key } })
      )
    const long = await answer('long')
    const short = await answer('short')
    expect(long.action).not.toBe('SKIP')
    expect(long.size_mult).toBeGreaterThan(0)
    expect(short.action).toBe('SKIP')
    const p = run('node', ['dist/examples/ccxt-confirm-bot.js', 'ETH/USDT:USDT buy 2', 'ETH/USDT:USDT sell 2'], env())
    expect(await p.exited, p.stderr()).toBe(0)
    const [buy, sell] = p.out.map((l) => JSON.parse(l))
    expect(buy).toMatchObject({ symbol: 'ETH/USDT:USDT', side: 'buy', amount: 2, action: long.action })
    expect(buy.size_mult).toBe(long.size_mult)
    expect(buy.order).toEqual({ id: 'paper-1', amount: 2 * long.size_mult })
    // the screener's row of the market, read for the log line: the funding as ingested
    expect(buy.funding).toMatchObject({ rate: -0.002, interval_hours: 8 })
    expect(sell).toMatchObject({ side: 'sell', action: 'SKIP', size_mult: 0, order: null })
  })

  it('ccxt-confirm-bot refuses a symbol that is not a CCXT unified symbol, placing nothing', async () => {
    const p = run('node', ['dist/examples/ccxt-confirm-bot.js', 'ETHUSDT buy 1'], env())
    expect(await p.exited).toBe(1)
    expect(p.stderr()).toContain('ETHUSDT is not a CCXT unified symbol')
    expect(p.out.filter((l) => l.trim() !== '')).toEqual([])
  })
})

describe('examples: freqtrade strategy (freqtrade not installed)', () => {
  const strategy = 'examples/python/tidewatch_confirm_strategy.py'
  const iso = (ms: number) => new Date(ms).toISOString()

  /** Runs confirm_trade_entry once through the module's own entry point; its printed JSON. */
  async function entry(side: string, moment: string | null, extra: Record<string, string> = {}) {
    const p = run('python3', [strategy, 'BTC/USDT:USDT', side, ...(moment === null ? [] : [moment])], {
      ...env(),
      TIDEWATCH_PAGE_STEPS: '24',
      ...extra
    })
    expect(await p.exited, p.stderr()).toBe(0)
    return JSON.parse(p.out[0]!) as { mode: string; enter: boolean; answer: Record<string, unknown> | null }
  }

  /** The confirm history's answer at one step, as the API answers it. */
  async function historyAt(side: string, stepMs: number, knownBy?: number) {
    const q = `symbol=BTC&direction=${side}&start=${stepMs}&end=${stepMs + HOUR}${knownBy === undefined ? '' : `&known_by=${knownBy}`}`
    const body = await jsonBody(await fetch(`${srv.base}/v1/confirm/history?${q}`, { headers: { 'x-api-key': key } }))
    expect(body.data, JSON.stringify(body)).toHaveLength(1)
    return body.data[0] as Record<string, unknown>
  }

  it('in a backtest, answers at the candle close time what the confirm history answers at that step', async () => {
    // everything was received now: a backtest over data imported after the fact fixes known_by
    const knownBy = Date.now()
    const crowdedLongs = START + 30 * HOUR
    const crowdedShorts = START + 54 * HOUR
    const seen = []
    for (const [moment, step] of [
      [iso(crowdedLongs + 60_000), crowdedLongs], // a close time inside the step's hour reads the step
      [String(crowdedShorts), crowdedShorts]
    ] as const) {
      const got = await entry('long', moment, { TIDEWATCH_KNOWN_BY: String(knownBy) })
      const want = await historyAt('long', step, knownBy)
      expect(got.mode).toBe('backtest')
      expect(got.answer).toEqual(want)
      expect(got.enter).toBe(want['action'] === 'CONFIRM')
      seen.push(want)
    }
    // the moment matters: longs crowded then shorts crowded read differently for a long
    expect(seen[1]!['composite'] as number).toBeGreaterThan(seen[0]!['composite'] as number)
    expect(seen[0]!['derivatives']).toMatchObject({ funding_rate: 0.002 })
    expect(seen[1]!['derivatives']).toMatchObject({ funding_rate: -0.002 })
    // without known_by each step sees only what had been received by then: nothing, so no entry
    const then = await entry('long', String(crowdedShorts))
    expect(then.answer).toEqual(await historyAt('long', crowdedShorts))
    expect(then.answer!['action']).toBe('SKIP')
    expect(then.enter).toBe(false)
  }, 180_000)

  it('live, answers what GET /v1/confirm answers now', async () => {
    const got = await entry('short', null)
    const want = await jsonBody(
      await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=short`, { headers: { 'x-api-key': key } })
    )
    expect(got.mode).toBe('live')
    expect(got.answer).toMatchObject({ symbol: 'BTC', direction: 'short', action: want.action })
    expect(got.answer!['composite']).toBe(want.composite)
    expect(got.answer!['derivatives']).toEqual(want.derivatives)
    expect(got.enter).toBe(want.action === 'CONFIRM')
  })
})
