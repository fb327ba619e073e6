/**
 * `POST /v1/admin/ingest/{kind}` stores what it accepts exactly as sent, and refuses the rest with
 * `400 invalid_record` naming the line and field, writing nothing. Through the real admin API: every value
 * just past a limit (times that are not 13-digit milliseconds, integers past their column, lone surrogates)
 * is refused and the raw table keeps its row count; the values at the limits, for every kind, go through the
 * raw table and every materialized view behind it and read back unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KIND_SPECS, MAX_TS_MS, MIN_TS_MS, RECORD_KINDS } from '../../engine/records/fields.js'
import type { RecordKind } from '../../engine/records/types.js'
import { expectApiError } from '../helpers/api-error.js'
import { readRecordsDoc } from '../helpers/records-doc.js'
import { ingestRecords, ndjson, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
const doc = readRecordsDoc()

/** the first example line of docs/records.md of a kind: a record the server accepts */
function example(kind: RecordKind): Record<string, unknown> {
  return JSON.parse(doc.sections.get(kind)!.examples[0]!) as Record<string, unknown>
}

beforeAll(async () => {
  srv = await startTestServer()
  // Rows from 2001 are past every TTL (90 days raw, 24 months aggregates): a TTL merge drops their parts
  // within seconds. Stop TTL merges so the rows at the lower limit can be read back.
  await srv.running.ctx.store.command('SYSTEM STOP TTL MERGES')
})

afterAll(async () => {
  await srv?.stop()
})

const post = (kind: string, body: string): Promise<Response> =>
  fetch(`${srv.base}/v1/admin/ingest/${kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    body
  })

async function rowsIn(table: string): Promise<number> {
  const [row] = await srv.running.ctx.store.query<{ n: number }>(`SELECT count() AS n FROM ${table}`)
  return Number(row!.n)
}

const SECONDS = '; 1700000000 looks like epoch seconds: multiply by 1000'

/** [kind, field, value, text the message must hold] */
const REFUSED: [RecordKind, string, unknown, string][] = [
  // values that failed the insert with 500 (parsed as a date or a wrong number of decimals)...
  ...[0, 999, 99_999_999, 31_536_000_000, 946_684_800_000, MIN_TS_MS - 1].map(
    (ts): [RecordKind, string, unknown, string] => ['trade', 'ts', ts, 'epoch milliseconds (13 digits)']
  ),
  // ...or were stored as another time: 1 as January 1 of this year, 1000 as the year 1000, 86400000 as
  // 8640-01-01, 1700000000 as seconds (2023-11-14) while the live state took it as milliseconds (1970-01-20)
  ['trade', 'ts', 1, 'epoch milliseconds'],
  ['trade', 'ts', 1000, 'epoch milliseconds'],
  ['trade', 'ts', 86_400_000, 'epoch milliseconds'],
  ['trade', 'ts', 1_700_000_000, SECONDS],
  ['trade', 'ts', MAX_TS_MS + 1, 'epoch milliseconds'],
  ['trade', 'ts', 1_700_000_000_123_000, 'looks like epoch microseconds: divide by 1000'],
  ['funding', 'ts', 1_700_000_000, SECONDS],
  ['funding', 'next_funding_ts', 1_700_000_000, SECONDS],
  ['funding', 'next_funding_ts', 0, 'epoch milliseconds'],
  ['funding', 'next_funding_ts', 31_536_000_000, 'epoch milliseconds'],
  ['funding', 'next_funding_ts', MAX_TS_MS + 1, 'epoch milliseconds'],
  ['open_interest', 'ts', 99_999_999, 'epoch milliseconds'],
  ['long_short', 'ts', 1_700_000_000, SECONDS],
  ['liquidation', 'ts', 999, 'epoch milliseconds'],
  ['option_quote', 'ts', 1_700_000_000, SECONDS],
  ['whale_transfer', 'ts', 31_536_000_000, 'epoch milliseconds'],
  ['onchain_metric', 'ts', 0, 'epoch milliseconds'],
  // UInt8: 300 was stored as 44; 0 would divide the annualized rate by zero
  ['funding', 'interval_hours', 300, 'must be an integer from 1 to 255'],
  ['funding', 'interval_hours', 256, 'must be an integer from 1 to 255'],
  ['funding', 'interval_hours', 0, 'must be an integer from 1 to 255'],
  // UInt32: 2^33 + 5 was stored as 5
  ['whale_transfer', 'log_index', 2 ** 32, 'must be an integer from 0 to 4294967295'],
  ['whale_transfer', 'log_index', 2 ** 33 + 5, 'must be an integer from 0 to 4294967295'],
  ['whale_transfer', 'block_number', 2 ** 53, 'must be an integer from 0 to 9007199254740991'],
  // no UTF-8 form: was stored as U+FFFD
  ['whale_transfer', 'address', '0x\ud800', 'must be valid Unicode'],
  ['trade', 'symbol', 'BTC\udc00', 'must be valid Unicode']
]

describe('values the store cannot hold as sent', () => {
  it.each(REFUSED)(
    '%s.%s = %s: 400 invalid_record naming line 2 and the field, nothing written',
    async (kind, field, value, text) => {
      const table = KIND_SPECS[kind].table
      const before = await rowsIn(table)
      // line 1 is good, line 2 is not: the whole body is refused
      const body = ndjson([example(kind)]) + JSON.stringify({ ...example(kind), [field]: value }) + '\n'
      const res = await post(kind, body)
      const json = (await res.clone().json()) as { error: { line?: number } }
      const error = await expectApiError(res, 400, 'invalid_record')
      expect(error.param).toBe(field)
      expect(json.error.line).toBe(2)
      expect(error.message).toMatch(new RegExp(`^line 2, field ${field}: .*; nothing was written$`))
      expect(error.message).toContain(text)
      expect(await rowsIn(table)).toBe(before)
    }
  )
})

/** one record of `kind` at time `ts` with the widest values of every bounded field */
function atLimit(kind: RecordKind, ts: number, low: boolean): Record<string, unknown> {
  const r: Record<string, unknown> = { ...example(kind), ts }
  if (kind === 'trade') r['trade_id'] = `limit-${ts}-\u{1F40B}\t\\` // astral and escaped characters round-trip
  if (kind === 'funding') Object.assign(r, { interval_hours: low ? 1 : 255, next_funding_ts: ts })
  if (kind === 'whale_transfer') {
    Object.assign(r, {
      tx_hash: `0x${'ab'.repeat(126)}${low ? 'lo' : 'hi'}`, // 256 characters
      log_index: low ? 0 : 2 ** 32 - 1,
      block_number: low ? 0 : Number.MAX_SAFE_INTEGER,
      token: 'W\u{1F40B}\t\\é'
    })
  }
  if (kind === 'onchain_metric') r['value'] = low ? 5e-324 : 0.1 + 0.2
  return r
}

describe('values at the limits are stored exactly', () => {
  it.each(RECORD_KINDS)('%s: ts 2001-09-09 and 2100-01-01 go through the raw table and its views', async (kind) => {
    const { table, fields } = KIND_SPECS[kind]
    const rows = [atLimit(kind, MIN_TS_MS, true), atLimit(kind, MAX_TS_MS, false)]
    const before = await rowsIn(table)
    await ingestRecords(srv.base, kind, rows)
    expect(await rowsIn(table)).toBe(before + 2)
    // times as epoch ms, the rest as stored; ingest_ts is the store's own
    const cols = fields.map((f) => (f.type === 'ts' ? `toUnixTimestamp64Milli(${f.name}) AS ${f.name}` : f.name))
    const stored = await srv.running.ctx.store.query<Record<string, unknown>>(
      `SELECT ${cols.join(', ')}
       FROM (SELECT * FROM ${table} WHERE toUnixTimestamp64Milli(ts) IN ({lo:Int64}, {hi:Int64})) ORDER BY ts`,
      { lo: MIN_TS_MS, hi: MAX_TS_MS }
    )
    // an optional field left out is stored as NULL
    const want = rows.map((r) => Object.fromEntries(fields.map((f) => [f.name, r[f.name] ?? null])))
    expect(stored).toEqual(want)
  })

  it('the derived tables hold the buckets of both limits', async () => {
    const buckets = async (t: string): Promise<number[]> =>
      (
        await srv.running.ctx.store.query<{ b: number }>(
          `SELECT DISTINCT toUnixTimestamp(bucket) * 1000 AS b FROM ${t} ORDER BY b`
        )
      ).map((r) => r.b)
    // the hour, day, week and month of each limit: 2001-09-09T01:46:40Z is a Sunday (week of the 3rd),
    // 2100-01-01T00:00Z a Friday (week of 2099-12-28)
    const hour = Date.UTC(2001, 8, 9, 1)
    expect(await buckets('candles_1h')).toEqual([hour, MAX_TS_MS])
    expect(await buckets('candles_1w')).toEqual([Date.UTC(2001, 8, 3), Date.UTC(2099, 11, 28)])
    expect(await buckets('candles_1mo')).toEqual([Date.UTC(2001, 8, 1), MAX_TS_MS])
    expect(await buckets('funding_1d')).toEqual([Date.UTC(2001, 8, 9), MAX_TS_MS])
    expect(await buckets('open_interest_1h')).toEqual([hour, MAX_TS_MS])
    expect(await buckets('liquidations_1h')).toEqual([hour, MAX_TS_MS])
    expect(await buckets('whale_flows_1d')).toEqual([Date.UTC(2001, 8, 9), MAX_TS_MS])
  })
})
