import { describe, it, expect } from 'vitest'
import { KIND_SPECS, MAX_TS_MS, MIN_TS_MS, RECORD_KINDS } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import { escapeTsv } from '../../engine/runtime/tsv-row.js'
import { validateRecord } from '../../engine/records/validate.js'
import type { FundingRecord, TradeRecord, WhaleTransferRecord } from '../../engine/records/types.js'
import { renderSchema } from '../../engine/schema/ddl.js'
import { readSchemaFiles } from '../../engine/schema/migrate.js'

const trade: TradeRecord = {
  kind: 'trade',
  ts: 1700000000123,
  exchange: 'binance',
  market: 'perp',
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  side: 'buy',
  price: 37000.5,
  qty: 0.001,
  trade_id: 'a\tb\\c\nd'
}

describe('TSV encoder', () => {
  it('writes fields in table order and escapes tabs, newlines and backslashes', () => {
    expect(encodeTsv('trade', [trade])).toBe(
      '1700000000123\tbinance\tperp\tBTCUSDT\tBTC\tUSDT\tbuy\t37000.5\t0.001\ta\\tb\\\\c\\nd\n'
    )
  })

  it('writes absent optional fields as \\N and keeps present zeros', () => {
    const f: FundingRecord = {
      kind: 'funding',
      ts: 1,
      exchange: 'okx',
      symbol: 'BTC-USDT-SWAP',
      base: 'BTC',
      funding_rate: 0,
      interval_hours: 8,
      mark_price: 0
    }
    expect(encodeTsv('funding', [f])).toBe('1\tokx\tBTC-USDT-SWAP\tBTC\t0\t8\t\\N\t0\t\\N\n')
  })

  it('leaves plain strings untouched', () => {
    expect(escapeTsv('BTC-5JAN25-100000-C')).toBe('BTC-5JAN25-100000-C')
  })
})

const TS_RANGE = 'integer epoch milliseconds (13 digits) from 1000000000000 (2001-09-09) to 4102444800000 (2100-01-01)'

describe('record validation', () => {
  const { kind: _k, ...plain } = trade
  void _k

  it('accepts a valid record with or without its kind', () => {
    expect(validateRecord('trade', plain)).toEqual({ ok: true, record: trade })
    expect(validateRecord('trade', trade).ok).toBe(true)
  })

  it.each([
    ['price', -1, 'must be >= 0'],
    ['price', 'x', 'must be a finite number'],
    ['ts', 1.5, `must be ${TS_RANGE}`],
    ['ts', 1700000000123000, `must be ${TS_RANGE}; 1700000000123000 looks like epoch microseconds: divide by 1000`],
    ['side', 'long', 'must be one of buy, sell'],
    ['symbol', '', 'must be a non-empty string'],
    ['trade_id', undefined, 'is required']
  ])('names the field at fault: %s = %s', (field, value, message) => {
    const bad = { ...plain, [field]: value }
    if (value === undefined) delete (bad as Record<string, unknown>)[field]
    expect(validateRecord('trade', bad)).toEqual({ ok: false, problem: { field, message } })
  })

  it('rejects unknown fields and a mismatched kind', () => {
    expect(validateRecord('trade', { ...plain, pricee: 1 })).toEqual({
      ok: false,
      problem: { field: 'pricee', message: 'is not a field of trade' }
    })
    expect(validateRecord('trade', { ...plain, kind: 'funding' })).toEqual({
      ok: false,
      problem: { field: 'kind', message: 'must be "trade"' }
    })
    expect(validateRecord('trade', [1, 2]).ok).toBe(false)
  })

  it('treats optional fields as optional and rejects NaN in them', () => {
    const f = { ts: 1700000000000, exchange: 'okx', symbol: 'S', base: 'B', funding_rate: -0.001, interval_hours: 1 }
    expect(validateRecord('funding', f).ok).toBe(true)
    expect(validateRecord('funding', { ...f, mark_price: Number.NaN })).toEqual({
      ok: false,
      problem: { field: 'mark_price', message: 'must be a finite number' }
    })
  })
})

describe('record validation refuses what the store cannot hold as sent', () => {
  const funding: FundingRecord = {
    kind: 'funding',
    ts: 1700000000000,
    exchange: 'okx',
    symbol: 'BTC-USDT-SWAP',
    base: 'BTC',
    funding_rate: 0.0001,
    interval_hours: 8,
    next_funding_ts: 1700028800000
  }
  const whale: WhaleTransferRecord = {
    kind: 'whale_transfer',
    ts: 1700000000000,
    chain: 'ethereum',
    tx_hash: '0xabc',
    log_index: 7,
    block_number: 18_000_000,
    address: '0x1',
    counterparty: '0x2',
    event_type: 'transfer_in',
    token: 'USDC',
    amount: 1,
    usd_value: 1
  }
  const problem = (kind: 'funding' | 'whale_transfer', record: object) => {
    const v = validateRecord(kind, record)
    return v.ok ? null : v.problem
  }

  it.each(['ts', 'next_funding_ts'])('%s: 13-digit milliseconds from 2001-09-09 to 2100-01-01, both included', (f) => {
    for (const v of [MIN_TS_MS, MAX_TS_MS, 1_795_161_600_123])
      expect(problem('funding', { ...funding, [f]: v })).toBe(null)
    // the values that failed the insert (0, 999, 99999999, 31536000000) or were stored as another time
    for (const v of [0, 1, 999, 1000, 86_400_000, 99_999_999, 31_536_000_000, 946_684_800_000, MIN_TS_MS - 1]) {
      expect(problem('funding', { ...funding, [f]: v }), String(v)).toEqual({
        field: f,
        message: `must be ${TS_RANGE}`
      })
    }
    expect(problem('funding', { ...funding, [f]: MAX_TS_MS + 1 })).toEqual({ field: f, message: `must be ${TS_RANGE}` })
    expect(problem('funding', { ...funding, [f]: -1_700_000_000_000 })!.message).toBe(`must be ${TS_RANGE}`)
  })

  it('says which way to convert a value in seconds, microseconds or nanoseconds', () => {
    const msg = (ts: number) => problem('funding', { ...funding, ts })!.message.slice(`must be ${TS_RANGE}`.length)
    expect(msg(1_700_000_000)).toBe('; 1700000000 looks like epoch seconds: multiply by 1000')
    expect(msg(1_000_000_000)).toBe('; 1000000000 looks like epoch seconds: multiply by 1000')
    expect(msg(1_700_000_000_123_456)).toBe('; 1700000000123456 looks like epoch microseconds: divide by 1000')
    expect(msg(1_700_000_000_123_456_789)).toContain('looks like epoch nanoseconds: divide by 1000000')
    expect(msg(999_999_999)).toBe('')
  })

  it('interval_hours: 1 to 255 (a UInt8 column; 0 would divide annualized rates by zero)', () => {
    for (const v of [1, 8, 255]) expect(problem('funding', { ...funding, interval_hours: v })).toBe(null)
    for (const v of [0, 256, 300, -1, 1.5]) {
      expect(problem('funding', { ...funding, interval_hours: v }), String(v)).toEqual({
        field: 'interval_hours',
        message: 'must be an integer from 1 to 255'
      })
    }
  })

  it('log_index: 0 to 2^32 - 1 (UInt32); block_number: 0 to 2^53 - 1 (UInt64, exact in JSON)', () => {
    for (const v of [0, 2 ** 32 - 1]) expect(problem('whale_transfer', { ...whale, log_index: v })).toBe(null)
    for (const v of [2 ** 32, 2 ** 33 + 5, -1]) {
      expect(problem('whale_transfer', { ...whale, log_index: v }), String(v)).toEqual({
        field: 'log_index',
        message: 'must be an integer from 0 to 4294967295'
      })
    }
    expect(problem('whale_transfer', { ...whale, block_number: Number.MAX_SAFE_INTEGER })).toBe(null)
    expect(problem('whale_transfer', { ...whale, block_number: 2 ** 53 })).toEqual({
      field: 'block_number',
      message: 'must be an integer from 0 to 9007199254740991'
    })
  })

  it('strings: a lone surrogate (no UTF-8 form, stored as U+FFFD) is refused; astral characters are not', () => {
    expect(problem('whale_transfer', { ...whale, token: 'USDC\u{1F40B}é' })).toBe(null)
    for (const token of ['\ud800', 'a\udc00b', 'x\ud83d']) {
      expect(problem('whale_transfer', { ...whale, token }), JSON.stringify(token)).toEqual({
        field: 'token',
        message: 'must be valid Unicode (no lone surrogate \\uD800-\\uDFFF)'
      })
    }
  })
})

/** `name -> type` of the columns of each raw table, from schemas/001_raw_tables.sql as rendered for one node */
function rawColumns(): Map<string, Map<string, string>> {
  const sql = readSchemaFiles().find((f) => f.name.startsWith('001_'))!.sql
  const tables = new Map<string, Map<string, string>>()
  for (const stmt of renderSchema(sql, {})) {
    const m = /^CREATE TABLE IF NOT EXISTS (\w+) \(\n([\s\S]*?)\n\) ENGINE/.exec(stmt)
    if (!m) continue
    const cols = new Map<string, string>()
    for (const line of m[2]!.split('\n')) {
      const c = /^\s*(\w+) (.+?)(?: CODEC\(.*\))?(?: DEFAULT .*)?,?$/.exec(line)
      if (c) cols.set(c[1]!, c[2]!)
    }
    tables.set(m[1]!, cols)
  }
  return tables
}

/** the range of an unsigned column type; UInt64 past 2^53 - 1 is not exact in JSON */
const UINT_RANGE: Readonly<Record<string, number>> = {
  UInt8: 255,
  UInt16: 65_535,
  UInt32: 4_294_967_295,
  UInt64: Number.MAX_SAFE_INTEGER
}

describe('field limits match the columns of schemas/001_raw_tables.sql', () => {
  const tables = rawColumns()

  it.each(RECORD_KINDS)('%s', (kind) => {
    const cols = tables.get(KIND_SPECS[kind].table)!
    expect(cols, KIND_SPECS[kind].table).toBeDefined()
    for (const f of KIND_SPECS[kind].fields) {
      const raw = cols.get(f.name)!
      const nullable = /^Nullable\((.*)\)$/.exec(raw)
      expect(nullable !== null, `${kind}.${f.name} nullable`).toBe(f.optional === true)
      const type = nullable ? nullable[1]! : raw
      const where = `${kind}.${f.name}: ${type}`
      switch (f.type) {
        case 'ts':
          expect(type, where).toBe("DateTime64(3, 'UTC')")
          break
        case 'float':
          // Float32 would keep about 7 digits of a price
          expect(type, where).toBe('Float64')
          break
        case 'string':
          // no FixedString, which would pad or refuse
          expect(['String', 'LowCardinality(String)'], where).toContain(type)
          break
        case 'uint':
          expect(Object.keys(UINT_RANGE), where).toContain(type)
          expect(f.max ?? Number.MAX_SAFE_INTEGER, where).toBe(UINT_RANGE[type])
          expect(f.min ?? 0, where).toBeGreaterThanOrEqual(0)
          break
        case 'enum':
          expect(type, where).toBe(`Enum8(${f.values!.map((v, i) => `'${v}' = ${i + 1}`).join(', ')})`)
          break
      }
    }
  })
})
