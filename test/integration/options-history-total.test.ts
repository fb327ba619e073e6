/**
 * `GET /v1/options/history?metric=total_oi` is calls + puts without float noise, like the live chain's sums
 * (engine/options/decimal-sums.ts): 1718.1 + 0.6 contracts is 1718.7, not 1718.6999999999998, in the
 * snapshot series (options_metrics) and in the hourly one (options_metrics_1h).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, startTestServer } from '../helpers/server.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
const HOUR = 3_600_000
const now = Date.now()

/** one call and one put of an unexpired ETH expiry: each snapshot's totals are exactly these OIs */
function snapshot(ts: number, callOi: number, putOi: number): object[] {
  const quote = (type: 'C' | 'P', open_interest: number) => ({
    ts,
    exchange: 'deribit',
    instrument: `ETH-26DEC36-3000-${type}`,
    underlying_price: 3000,
    mark_price: 0.1,
    open_interest,
    volume_24h: 1
  })
  return [quote('C', callOi), quote('P', putOi)]
}

beforeAll(async () => {
  srv = await startTestServer()
  // each sum is noisy in binary floating point: 1718.6999999999998, 0.30000000000000004, 2.2800000000000002
  await ingestRecords(srv.base, 'option_quote', snapshot(now - 3 * HOUR, 1718.1, 0.6))
  await ingestRecords(srv.base, 'option_quote', snapshot(now - 2 * HOUR, 0.1, 0.2))
  await ingestRecords(srv.base, 'option_quote', snapshot(now - HOUR, 2, 0.28))
})

afterAll(async () => {
  await srv?.stop()
})

async function totals(hours: number): Promise<{ resolution: string; values: unknown[] }> {
  const body = await jsonBody(await fetch(`${srv.base}/v1/options/history?currency=ETH&metric=total_oi&hours=${hours}`))
  return { resolution: body.resolution, values: body.points.map((p: { value: number }) => p.value) }
}

describe('GET /v1/options/history total_oi', () => {
  it('rounds calls + puts to the decimals of the inputs in the snapshot series', async () => {
    expect(1718.1 + 0.6).not.toBe(1718.7) // the noise this guards against
    expect(await totals(4)).toEqual({ resolution: 'snapshot', values: [1718.7, 0.3, 2.28] })
  })

  it('and in the hourly series', async () => {
    expect(await totals(72)).toEqual({ resolution: '1h', values: [1718.7, 0.3, 2.28] })
  })

  it('48 hours is the last span answered per snapshot; 49 reads the hourly view', async () => {
    expect(await totals(48)).toEqual({ resolution: 'snapshot', values: [1718.7, 0.3, 2.28] })
    expect(await totals(49)).toEqual({ resolution: '1h', values: [1718.7, 0.3, 2.28] })
  })
})
