import { describe, expect, it } from 'vitest'
import { deriveOptionsMetrics } from '../../ingest/derive/options-metrics.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'

const TS = Date.UTC(2025, 0, 1, 8)
const quote = (instrument: string, open_interest: number, volume_24h: number): OptionQuoteRecord => ({
  kind: 'option_quote',
  ts: TS,
  exchange: 'deribit',
  instrument,
  underlying_price: 94000.5,
  mark_price: 0.01,
  open_interest,
  volume_24h
})

describe('options metrics rows', () => {
  it('writes one TSV line per snapshot and per expiry, ratios without a denominator as \\N', () => {
    const chunks = deriveOptionsMetrics(
      [quote('BTC-5JAN25-100000-P', 10, 2), quote('BTC-28MAR25-90000-P', 5, 0), quote('ETH-5JAN25-3000-C', 1.5, 0)],
      false
    )
    const text = chunks.map((c) => [c.table, c.rows, c.columns.length, new TextDecoder().decode(c.data)])
    expect(text).toEqual([
      [
        'options_metrics',
        2,
        11,
        '1735718400000\tBTC\t94000.5\t0\t15\t0\t2\t\\N\t\\N\t5JAN25\t100000\n' +
          '1735718400000\tETH\t94000.5\t1.5\t0\t0\t0\t0\t\\N\t5JAN25\t3000\n'
      ],
      [
        'options_expiry_metrics',
        3,
        9,
        '1735718400000\tBTC\t5JAN25\t1736064000000\t0\t10\t\\N\t100000\t0\n' +
          '1735718400000\tBTC\t28MAR25\t1743148800000\t0\t5\t\\N\t90000\t0\n' +
          '1735718400000\tETH\t5JAN25\t1736064000000\t1.5\t0\t0\t3000\t0\n'
      ]
    ])
  })

  it('gives no chunk without BTC or ETH quotes', () => {
    expect(deriveOptionsMetrics([quote('SOL-5JAN25-200-C', 1, 1)], true)).toEqual([])
  })
})
