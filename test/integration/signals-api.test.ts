/**
 * The signal engine in the real server over chDB: admin ingest moves BTC's confirmation across the
 * thresholds; the events fire once, are published on the bus and on the push stream's signals: channels,
 * stored, listed by GET /v1/signals with filters and paging, show in /v1/health, and are not fired again
 * after a restart on the same data dir.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { start, type Running } from '../../server/start.js'
import { MIN_INTERVAL_MS } from '../../engine/signals/signal-engine.js'
import { ingestRecords, jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { StreamClient, type Frame } from '../helpers/stream-client.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const HOUR = 3_600_000
const now = Date.now()
const tmp = tmpDir()
/**
 * The signal engine's clock, epoch ms, held between the test's steps: a base evaluated at the held moment is
 * not evaluated again until the test moves it on by an interval, so records posted meanwhile are evaluated
 * together, however loaded the machine is.
 */
let engineClockMs = now

interface Server {
  readonly running: Running
  readonly base: string
  /** every event published on this server's bus */
  readonly published: SignalEvent[]
}

async function boot(): Promise<Server> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: tmp.dir,
    SOURCES: 'none',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CHDB_POOL_SIZE: '2'
  })
  const running = await start(config, silentLogger(), { signalClock: () => engineClockMs })
  const published: SignalEvent[] = []
  running.ctx.signals!.bus.subscribe((e) => published.push(e))
  await running.ready
  return { running, base: `http://127.0.0.1:${running.port}`, published }
}

async function until<T>(what: string, probe: () => T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

let srv: Server
let pro = ''
let stream: StreamClient
const BTC = { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC' }
const post = (kind: string, rows: object[]) => ingestRecords(srv.base, kind, rows)
const list = async (q = '', key = pro) =>
  jsonBody(await fetch(`${srv.base}/v1/signals${q}`, { headers: { 'x-api-key': key } }))
const engine = () => srv.running.ctx.signals!.engine
/**
 * Moves the engine's clock on by one interval (a dirty BTC is due), waits until BTC is evaluated and clean,
 * then holds the clock at that evaluation's moment: BTC is not due again, whatever is posted, until the next
 * call.
 */
async function settled(what: string): Promise<void> {
  engineClockMs += MIN_INTERVAL_MS
  await until(what, () => engine().lastEvaluatedAt('BTC') !== undefined && !engine().pending('BTC'))
  engineClockMs = engine().lastEvaluatedAt('BTC')!
}

beforeAll(async () => {
  srv = await boot()
  pro = (await srv.running.ctx.keys.create('pro', 'p')).key
  // neutral derivatives: funding at the venues' default, balanced accounts, flat OI and price: composite 0
  await post('funding', [{ ...BTC, ts: now - 60_000, funding_rate: 0.0001, interval_hours: 8 }])
  await post('long_short', [{ ...BTC, ts: now - 60_000, long_short_ratio: 1 }])
  await post('open_interest', [
    { ...BTC, ts: now - 24 * HOUR, oi_base: 10_000, oi_usd: 1e9 },
    { ...BTC, ts: now - 60_000, oi_base: 10_000, oi_usd: 1e9 }
  ])
  const trade = { ...BTC, market: 'perp', quote: 'USDT', side: 'buy', qty: 1 }
  await post('trade', [
    { ...trade, ts: now - 25 * HOUR, price: 100_000, trade_id: '1' },
    { ...trade, ts: now - 60_000, price: 100_000, trade_id: '2' }
  ])
  // primed silently from its first evaluation (at the latest the one settled here, with every row above)
  await settled('BTC primed')
  expect(engine().stateOf('BTC', 'long')).toMatchObject({ level: 'NONE', action: 'REDUCE' })
  stream = await StreamClient.connect(`ws://127.0.0.1:${srv.running.port}/v1/stream?key=${pro}`)
  stream.send({ op: 'subscribe', id: 1, channels: ['signals:BTCUSDT', 'signals:all'] })
  await stream.count((f: Frame) => f.type === 'snapshot', 2)
  // BTC evaluated with this trade and the clock held there: the two posts below are evaluated together, so the
  // whales alone (a MEDIUM) are never evaluated between them
  await post('trade', [{ ...trade, ts: now - 30_000, price: 100_000, trade_id: '3' }])
  await settled('BTC evaluated again')
  // whales accumulate $500M across 4 wallets, coins leave exchanges, MVRV undervalued:
  // W = 1, O = 0.6·tanh(2.5) + 0.4 = 0.99, composite long = 0.30 + 0.248 = 0.548 (HIGH), short -0.548 (VETO)
  await post(
    'whale_transfer',
    [0, 1, 2, 3].map((i) => ({
      ts: now - 60_000,
      chain: 'ethereum',
      tx_hash: `0x${i}`,
      log_index: 0,
      block_number: 100 + i,
      address: `0xW${i}`,
      counterparty: '0xExchange',
      event_type: 'transfer_in',
      token: 'WBTC',
      amount: 1_250,
      usd_value: 125_000_000
    }))
  )
  await post('onchain_metric', [
    { ts: now - 60_000, asset: 'BTC', metric: 'exchange_netflow_usd', value: -500_000_000 },
    { ts: now - 60_000, asset: 'BTC', metric: 'mvrv', value: 0.7 }
  ])
  await settled('BTC evaluated with the whales and the on-chain metrics')
  await until('4 events stored', () => srv.running.ctx.signals!.stats().stored >= 4)
})
afterAll(async () => {
  stream.ws.close()
  await srv.running.stop()
  tmp.cleanup()
})

describe('signal engine in the server', () => {
  it('fires HIGH and SIGNAL for the long, VETO and SIGNAL for the short, once, on the bus', () => {
    expect(srv.published.map((e) => `${e.direction} ${e.event}`)).toEqual([
      'long HIGH',
      'long SIGNAL',
      'short VETO',
      'short SIGNAL'
    ])
    const [high, , veto] = srv.published
    expect(high).toMatchObject({ symbol: 'BTC', confidence: 'HIGH', action: 'CONFIRM', source: 'engine' })
    expect(high!.composite).toBeCloseTo(0.548, 2)
    expect(high!.id).toBe(`BTC-long-HIGH-${high!.ts}`)
    expect(veto).toMatchObject({ confidence: 'VETO', action: 'SKIP' })
    expect(veto!.composite).toBeCloseTo(-high!.composite, 12)
  })

  it('pushes each event on signals:BTC and signals:all', async () => {
    const ack = await stream.next((f: Frame) => f.type === 'ack')
    expect(ack).toMatchObject({ channels: ['signals:BTC', 'signals:all'], errors: [] })
    const snapshots = stream.frames.filter((f: Frame) => f.type === 'snapshot')
    expect(snapshots.map((f: Frame) => [f.channel, f.data])).toEqual([
      ['signals:BTC', []],
      ['signals:all', []]
    ])
    for (const channel of ['signals:BTC', 'signals:all']) {
      const updates = await stream.count((f: Frame) => f.type === 'update' && f.channel === channel, 4)
      expect(updates.flatMap((f: Frame) => f.data)).toEqual(srv.published)
    }
  })

  it('lists the stored events newest first, with filters and cursor paging', async () => {
    const all = await list()
    expect(all.next_cursor).toBeNull()
    expect(new Set(all.data.map((e: SignalEvent) => e.id))).toEqual(new Set(srv.published.map((e) => e.id)))
    // the same evaluation time: ties by id, descending
    expect(all.data.map((e: SignalEvent) => e.id)).toEqual(
      srv.published
        .map((e) => e.id)
        .sort()
        .reverse()
    )
    expect(all.data.find((e: SignalEvent) => e.event === 'HIGH')).toEqual(srv.published[0])

    expect((await list('?event=VETO')).data.map((e: SignalEvent) => e.direction)).toEqual(['short'])
    expect((await list('?symbol=BTCUSDT&direction=long')).data.map((e: SignalEvent) => e.event).sort()).toEqual([
      'HIGH',
      'SIGNAL'
    ])
    expect((await list(`?since=${srv.published[0]!.ts + 1}`)).data).toEqual([])
    expect((await list(`?since=${new Date(srv.published[0]!.ts).toISOString()}`)).data).toHaveLength(4)

    const walked: string[] = []
    let cursor: string | null = null
    do {
      const page = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.data.length).toBeLessThanOrEqual(1)
      walked.push(...page.data.map((e: SignalEvent) => e.id))
      cursor = page.next_cursor
    } while (cursor)
    expect(walked).toEqual(all.data.map((e: SignalEvent) => e.id))
  })

  it('refuses with the error envelope: the free plan, an unknown symbol', async () => {
    const free = (await srv.running.ctx.keys.create('free', 'f')).key
    expect((await list('', free)).error).toMatchObject({ code: 'forbidden' })
    expect((await list('?symbol=NOPE')).error).toMatchObject({ code: 'unknown_symbol', param: 'symbol' })
  })

  it('shows the engine and the writer in /v1/health', async () => {
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(health.signals).toMatchObject({ fired: 4, stored: 4, queued: 0, dropped: 0, eval_errors: 0 })
    expect(health.signals.bases).toBeGreaterThanOrEqual(1)
    const loops = health.loops.map((l: { name: string; state: string }) => `${l.name} ${l.state}`)
    expect(loops).toEqual(expect.arrayContaining(['signals running', 'signals-store running']))
  })

  it('does not fire again after a restart on the same data dir (state and cooldowns read back)', async () => {
    // MVRV 0.9: O = 0.6·tanh(2.5) + 0.4·(1/3), composite 0.48: inside HIGH's (and VETO's) hysteresis band,
    // so nothing fires and the tracked buckets stay; a fresh prime would read MEDIUM and NONE here
    await post('onchain_metric', [{ ts: now - 30_000, asset: 'BTC', metric: 'mvrv', value: 0.9 }])
    await settled('BTC re-evaluated')
    const answer = await jsonBody(
      await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': pro } })
    )
    expect(answer.composite).toBeCloseTo(0.4815, 3)
    expect(answer.confirmation).toBe('MEDIUM')
    expect(srv.published).toHaveLength(4)
    const long = engine().stateOf('BTC', 'long')
    const short = engine().stateOf('BTC', 'short')
    expect(long).toMatchObject({ level: 'HIGH', action: 'CONFIRM' })

    await srv.running.stop()
    srv = await boot()
    await until('restored', () => engine().restored)
    expect(engine().stats().restored).toBe(2)
    expect(engine().stateOf('BTC', 'long')).toEqual(long)
    expect(engine().stateOf('BTC', 'short')).toEqual(short)
    await until('BTC evaluated after the restart', () => engine().stats().evaluations >= 1)
    // back to 0.548: a primed state (MEDIUM) would fire HIGH and VETO again; the read-back one does not
    await post('onchain_metric', [{ ts: now - 10_000, asset: 'BTC', metric: 'mvrv', value: 0.7 }])
    await settled('BTC re-evaluated after the restart')
    expect(srv.published).toEqual([])
    expect(engine().stats().fired).toBe(0)
    pro = (await srv.running.ctx.keys.create('pro', 'p2')).key
    expect((await list()).data).toHaveLength(4)
  })
})
