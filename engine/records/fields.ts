/**
 * @module
 * Column layout of every normalized record kind: the one place that says which fields a kind has, their
 * types, which are optional, and which raw table stores them. Validation (admin ingest), the TSV encoder
 * and the schema test all read this table, so a field added here must be added to `schemas/` too.
 */
import type { RecordKind } from './types.js'

export type FieldType =
  /** integer epoch milliseconds, UTC, MIN_TS_MS to MAX_TS_MS */
  | 'ts'
  | 'string'
  /** finite float */
  | 'float'
  /** safe integer from `min` to `max` (0 to 2^53 - 1 unless the column is narrower) */
  | 'uint'
  | 'enum'

export interface FieldSpec {
  readonly name: string
  readonly type: FieldType
  /** optional fields may be absent or null; stored as NULL */
  readonly optional?: boolean
  /** allowed values for `enum` */
  readonly values?: readonly string[]
  /** numbers that must be >= 0 (prices, sizes, OI) */
  readonly nonNegative?: boolean
  /** smallest accepted value of a `uint` field. @default 0 */
  readonly min?: number
  /** largest accepted value of a `uint` field: its column's range. @default Number.MAX_SAFE_INTEGER */
  readonly max?: number
}

export interface KindSpec {
  readonly kind: RecordKind
  /** raw table name in ClickHouse */
  readonly table: string
  readonly fields: readonly FieldSpec[]
}

/**
 * Earliest accepted time, epoch ms: 2001-09-09T01:46:40Z, the smallest 13-digit value. Times reach the store
 * as bare integers in TSV, and ClickHouse reads a bare integer into DateTime64(3) by its number of digits:
 * 13 digits are seconds plus 3 decimals (milliseconds, as meant); 9-10 digits are seconds, 1-2 a day of this
 * January, 4 a year, 8 YYYYMMDD, and most other lengths fail the insert (measured on chDB 3.4 / ClickHouse
 * 26.7). So only 13 digits store the time that was sent.
 */
export const MIN_TS_MS = 1_000_000_000_000
/**
 * Latest accepted time, epoch ms: 2100-01-01T00:00:00Z. Within 13 digits, and within what every derived
 * table holds (the `DateTime` buckets and TTLs of the aggregates end in 2106); a larger value is almost
 * surely microseconds.
 */
export const MAX_TS_MS = 4_102_444_800_000
/** Longest string value, UTF-16 code units; symbols, hashes and addresses are far shorter. */
export const MAX_STRING_LENGTH = 256
/** Largest `UInt8` (interval_hours). */
const UINT8_MAX = 255
/** Largest `UInt32` (log_index). */
const UINT32_MAX = 4_294_967_295

const ts: FieldSpec = { name: 'ts', type: 'ts' }
const str = (name: string): FieldSpec => ({ name, type: 'string' })
const num = (name: string, optional = false): FieldSpec => ({ name, type: 'float', optional, nonNegative: true })
const side: FieldSpec = { name: 'side', type: 'enum', values: ['buy', 'sell'] }

export const KIND_SPECS: Readonly<Record<RecordKind, KindSpec>> = {
  trade: {
    kind: 'trade',
    table: 'trades',
    fields: [
      ts,
      str('exchange'),
      { name: 'market', type: 'enum', values: ['perp', 'spot'] },
      str('symbol'),
      str('base'),
      str('quote'),
      side,
      num('price'),
      num('qty'),
      str('trade_id')
    ]
  },
  funding: {
    kind: 'funding',
    table: 'funding',
    fields: [
      ts,
      str('exchange'),
      str('symbol'),
      str('base'),
      { name: 'funding_rate', type: 'float' },
      // UInt8 column; 0 would make every annualized rate a division by zero
      { name: 'interval_hours', type: 'uint', min: 1, max: UINT8_MAX },
      { name: 'next_funding_ts', type: 'ts', optional: true },
      num('mark_price', true),
      num('index_price', true)
    ]
  },
  open_interest: {
    kind: 'open_interest',
    table: 'open_interest',
    fields: [ts, str('exchange'), str('symbol'), str('base'), num('oi_base'), num('oi_usd')]
  },
  long_short: {
    kind: 'long_short',
    table: 'long_short',
    fields: [
      ts,
      str('exchange'),
      str('symbol'),
      str('base'),
      num('long_short_ratio'),
      num('long_account', true),
      num('short_account', true)
    ]
  },
  liquidation: {
    kind: 'liquidation',
    table: 'liquidations',
    fields: [ts, str('exchange'), str('symbol'), str('base'), side, num('price'), num('qty')]
  },
  option_quote: {
    kind: 'option_quote',
    table: 'option_quotes',
    fields: [
      ts,
      str('exchange'),
      str('instrument'),
      num('underlying_price'),
      num('mark_price'),
      num('mark_iv', true),
      num('open_interest'),
      num('volume_24h'),
      num('bid', true),
      num('ask', true)
    ]
  },
  whale_transfer: {
    kind: 'whale_transfer',
    table: 'whale_transfers',
    fields: [
      ts,
      str('chain'),
      str('tx_hash'),
      { name: 'log_index', type: 'uint', max: UINT32_MAX },
      // UInt64 column: every safe integer fits
      { name: 'block_number', type: 'uint' },
      str('address'),
      str('counterparty'),
      { name: 'event_type', type: 'enum', values: ['transfer_in', 'transfer_out', 'swap'] },
      str('token'),
      num('amount'),
      num('usd_value')
    ]
  },
  onchain_metric: {
    kind: 'onchain_metric',
    table: 'onchain_metrics',
    fields: [ts, str('asset'), str('metric'), { name: 'value', type: 'float' }]
  }
}

export const RECORD_KINDS = Object.keys(KIND_SPECS) as RecordKind[]

export function isRecordKind(value: string): value is RecordKind {
  return Object.hasOwn(KIND_SPECS, value)
}

/**
 * How a row's receive time (`ingest_ts`, the moment the service received it) is set:
 * - `store`: by the store, when the row reaches it (the column's `DEFAULT now64(3)`; every real write path:
 *   live feeds, backfills, gap fills, admin ingest, imports);
 * - `event`: the record's own event time `ts`, written as an explicit last column. Only the demo market's
 *   backfill uses it: the demo stands for a service that ran live through its month (docs/demo-market.md).
 */
export type ReceiveStamp = 'store' | 'event'

/** The raw tables' receive-time column (schemas/001_raw_tables.sql). */
export const RECEIVE_COLUMN = 'ingest_ts'

const COLUMNS = new Map<string, readonly string[]>()

/**
 * Column names of a kind's raw table in insert order (the TSV column order); with `event` stamps, plus
 * `ingest_ts` last. The same array for the same arguments (batchers compare column lists).
 */
export function columnsOf(kind: RecordKind, stamp: ReceiveStamp = 'store'): readonly string[] {
  const key = `${kind}:${stamp}`
  let cols = COLUMNS.get(key)
  if (!cols) {
    const names = KIND_SPECS[kind].fields.map((f) => f.name)
    cols = stamp === 'event' ? [...names, RECEIVE_COLUMN] : names
    COLUMNS.set(key, cols)
  }
  return cols
}
