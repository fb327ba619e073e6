import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, jsonBody, ingestRecords } from '../helpers/server.js'
import { summarizeChain } from '../../engine/options/chain-summary.js'
import { formatExpiryCode } from '../../engine/options/instrument.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
beforeAll(async () => {
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '1000' })
})
afterAll(async () => {
  await srv.stop()
})

const DAY = 86_400_000
const now = Date.now()
const at8 = (days: number) => Math.floor(now / DAY) * DAY + days * DAY + 8 * 3_600_000

function quotes(ts: number, spot: number, oiScale: number): OptionQuoteRecord[] {
  const out: OptionQuoteRecord[] = []
  for (const exp of [at8(2), at8(9), at8(-1) /* already expired */]) {
    for (const k of [0.4, 0.5, 0.8, 1, 1.2, 2, 2.1].map((f) => Math.round(spot * f))) {
      for (const t of ['C', 'P']) {
        out.push({
          kind: 'option_quote',
          ts,
          exchange: 'deribit',
          instrument: `BTC-${formatExpiryCode(exp)}-${k}-${t}`,
          underlying_price: spot,
          mark_price: 0.01,
          open_interest: oiScale * (1 + (k % 7)) * (t === 'C' ? 1 : 1.5),
          volume_24h: 3,
          mark_iv: 50
        })
      }
    }
  }
  return out
}

const post = (rows: OptionQuoteRecord[]): Promise<void> => ingestRecords(srv.base, 'option_quote', rows)

describe('GET /v1/options/chain', () => {
  it('reflects posted quotes at once and equals the chain computed from them', async () => {
    const first = quotes(now - 60_000, 100_000, 10)
    await post(first)
    const body = await jsonBody(await fetch(`${srv.base}/v1/options/chain?currency=BTC`))
    expect(body).toEqual(JSON.parse(JSON.stringify(summarizeChain(first, Date.now(), 'BTC'))))
    expect(Object.keys(body.expiry_summary)).toEqual([formatExpiryCode(at8(2)), formatExpiryCode(at8(9))])
    expect(body.oi_by_strike.map((r: { strike: number }) => r.strike)).toEqual([50000, 80000, 100000, 120000, 200000])
    expect(body.updated).toBe(Math.floor((now - 60_000) / 1000))

    const second = quotes(now, 110_000, 20) // a newer snapshot: new strikes and OI
    await post(second)
    const after = await jsonBody(await fetch(`${srv.base}/v1/options/chain`))
    expect(after.underlying_price).toBe(110_000)
    expect(after.updated).toBe(Math.floor(now / 1000))
    expect(after.total_call_oi).toBeGreaterThan(body.total_call_oi)
  })

  it('serves ETH separately, null ratios without data, and a 400 naming the accepted currencies', async () => {
    const eth = await jsonBody(await fetch(`${srv.base}/v1/options/chain?currency=ETH`))
    expect(eth).toMatchObject({ currency: 'ETH', total_call_oi: 0, pcr_oi: null, pcr_volume: null, oi_by_strike: [] })
    const bad = await fetch(`${srv.base}/v1/options/chain?currency=DOGE`)
    expect(bad.status).toBe(400)
    expect((await jsonBody(bad)).error).toEqual({
      code: 'invalid_parameter',
      message: 'currency must be one of BTC, ETH',
      param: 'currency'
    })
  })

  it('is rebuilt from the store after a restart of the live state', async () => {
    const before = await (await fetch(`${srv.base}/v1/options/chain`)).text()
    await srv.running.ctx.live.rebuild()
    const rebuilt = JSON.parse(await (await fetch(`${srv.base}/v1/options/chain`)).text())
    const orig = JSON.parse(before)
    expect(rebuilt.expiry_summary).toEqual(orig.expiry_summary)
    expect(rebuilt.max_pain).toEqual(orig.max_pain)
    expect(rebuilt.updated).toBe(orig.updated)
  })
})
