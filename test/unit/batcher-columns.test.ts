/**
 * A batch is one insert with one column list: chunks of the same table with another list (the demo
 * backfill's explicit receive times beside rows the store stamps) never share a batch.
 */
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { columnsOf } from '../../engine/records/fields.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import type { PartedBatch } from '../../ingest/journal.js'
import { TableBatcher } from '../../ingest/table-batcher.js'
import type { TradeRecord } from '../../engine/records/types.js'

const trade = (ts: number): TradeRecord => ({
  kind: 'trade',
  ts,
  exchange: 'binance',
  market: 'perp',
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  side: 'buy',
  price: 100,
  qty: 1,
  trade_id: String(ts)
})

describe('receive stamps in the row encoder and the batcher', () => {
  it('writes ingest_ts = ts as the last column of event-stamped chunks', () => {
    const [chunk] = encodeRecords([trade(1_767_225_600_123)], true, 'event')
    expect(chunk!.columns).toEqual([...columnsOf('trade'), 'ingest_ts'])
    const cells = new TextDecoder().decode(chunk!.data).trimEnd().split('\t')
    expect(cells.at(-1)).toBe('1767225600123')
    expect(cells[0]).toBe('1767225600123')
    const [plain] = encodeRecords([trade(1_767_225_600_123)], true)
    expect(plain!.columns).toEqual(columnsOf('trade'))
    expect(new TextDecoder().decode(plain!.data).trimEnd().split('\t')).toHaveLength(columnsOf('trade').length)
  })

  it('seals the open batch when a chunk with another column list arrives', async () => {
    const written: PartedBatch[] = []
    const b = new TableBatcher(
      'trades',
      async (batch) => {
        written.push(batch)
      },
      { batchRows: 1000, flushMs: 60_000, queueRows: 10_000 },
      silentLogger()
    )
    for (const stamp of ['event', 'event', 'store', 'store', 'event'] as const) {
      for (const c of encodeRecords([trade(1_767_225_600_000)], true, stamp)) await b.add(c)
    }
    await b.close(Date.now() + 10_000)
    expect(written.map((w) => [w.columns.length, w.parts?.length])).toEqual([
      [11, 2],
      [10, 2],
      [11, 1]
    ])
  })
})
