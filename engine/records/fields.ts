/**
 * @module
 * Column layout of every normalized record kind: the one place that says which fields a kind has, their
 * types, which are optional, and which raw table stores them. Validation (admin ingest), the TSV encoder
 * and the schema test all read this table, so a field added here must be added to `schemas/` too.
 */
import type { RecordKind } from './types.js'

export type FieldType =
  /** integer epoch milliseconds, UTC */
  | 'ts'
  | 'string'
  /** finite float */
  | 'float'
  /** non-negative safe integer */
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
}

export interface KindSpec {
  readonly kind: RecordKind
  /** raw table name in ClickHouse */
  readonly table: string
  readonly fields: readonly FieldSpec[]
}

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
      { name: 'interval_hours', type: 'uint' },
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
      { name: 'log_index', type: 'uint' },
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

/** Column names of a kind's raw table in insert order (the TSV column order). */
export function columnsOf(kind: RecordKind): readonly string[] {
  return KIND_SPECS[kind].fields.map((f) => f.name)
}
