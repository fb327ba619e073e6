/**
 * @module
 * JSON schemas (TypeBox) of the normalized records that `POST /v1/admin/ingest/{kind}` takes, one per NDJSON
 * line (docs/records.md), for the OpenAPI document. They are built from the field table validation reads
 * (engine/records/fields.ts), so fields, types, optional fields, allowed values and `>= 0` cannot drift from
 * engine/records/validate.ts; test/unit/record-schemas.test.ts checks both agree record by record.
 * The limits (ts range, string length, integer columns) are fields.ts's, which validation enforces.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import {
  KIND_SPECS,
  MAX_STRING_LENGTH,
  MAX_TS_MS,
  MIN_TS_MS,
  RECORD_KINDS,
  type FieldSpec
} from '../../engine/records/fields.js'
import { CHAIN_IDS } from '../../catalog/chains.js'
import { listText } from '../../catalog/text.js'
import { OPTIONS_VENUE_IDS, PERP_VENUES, PERP_VENUE_IDS, spotVenueId, usdtPerpSymbol } from '../../catalog/venues.js'
import type { RecordKind } from '../../engine/records/types.js'

/** Earliest accepted ts, epoch ms (fields.ts MIN_TS_MS: 2001-09-09, the smallest 13-digit value). */
export const MIN_RECORD_TS_MS = MIN_TS_MS
/** Latest accepted ts, epoch ms (fields.ts MAX_TS_MS: 2100-01-01). */
export const MAX_RECORD_TS_MS = MAX_TS_MS
/** Longest string value, characters (fields.ts MAX_STRING_LENGTH). */
export const MAX_RECORD_STRING = MAX_STRING_LENGTH

/**
 * Strings without a lone UTF-16 surrogate (validate.ts refuses them: they have no UTF-8 form). Written to
 * match the same strings with or without the regex `u` flag.
 */
const WELL_FORMED = '^(?:[^\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$'

const TS = 'epoch milliseconds, UTC (13 digits; seconds are refused)'

/** `BTCUSDT (Binance, Bybit) or BTC-USDT-SWAP (OKX)`: BTC's market name on each perpetual venue, venues grouped by form. */
function marketNameExamples(): string {
  const byName = new Map<string, string[]>()
  for (const v of PERP_VENUES) {
    const name = usdtPerpSymbol(v.id, 'BTC')
    byName.set(name, [...(byName.get(name) ?? []), v.label])
  }
  return listText(
    [...byName].map(([name, labels]) => `${name} (${labels.join(', ')})`),
    'or'
  )
}
const COMMON: Readonly<Record<string, string>> = {
  ts: `time of the event at its source (exchange or chain), ${TS}`,
  exchange: `venue id, lower case: ${PERP_VENUE_IDS.join(', ')} (perpetuals), ${OPTIONS_VENUE_IDS.join(', ')} (options); spot venues as ${spotVenueId(PERP_VENUE_IDS[0]!)}`,
  symbol: `exchange-native market name, e.g. ${marketNameExamples()}`,
  base: 'base asset, upper case, e.g. BTC; the read API looks markets up by it'
}

/** One line per field: meaning and unit. docs/records.md says the same at more length. */
const DESCRIPTIONS: { readonly [K in RecordKind]: Readonly<Record<string, string>> } = {
  trade: {
    ...COMMON,
    market: 'perp (perpetual swap) or spot',
    quote: 'quote asset, e.g. USDT',
    side: 'side of the taker (aggressor): buy lifted an ask, sell hit a bid',
    price: 'quote currency per base unit',
    qty: 'size in base units (coins, never contracts)',
    trade_id: "the venue's trade id; with exchange, symbol and ts it identifies the trade"
  },
  funding: {
    ...COMMON,
    funding_rate: 'decimal fraction per funding interval (0.0001 = 0.01% per interval); may be negative',
    interval_hours: 'hours between funding settlements: 1, 4 or 8 on the supported venues (1 to 255)',
    next_funding_ts: `time of the next settlement, ${TS}`,
    mark_price: 'mark price, quote currency per base unit',
    index_price: 'index price, quote currency per base unit'
  },
  open_interest: {
    ...COMMON,
    oi_base: 'open interest in base coins (contracts already converted)',
    oi_usd: 'open interest in USD at the time of the reading'
  },
  long_short: {
    ...COMMON,
    long_short_ratio: 'accounts net long / accounts net short',
    long_account: 'fraction of accounts net long, 0 to 1',
    short_account: 'fraction of accounts net short, 0 to 1'
  },
  liquidation: {
    ...COMMON,
    side: 'side of the liquidation order: sell closes a long, buy closes a short',
    price: 'quote currency per base unit',
    qty: 'size in base units'
  },
  option_quote: {
    ts: `time of the quote, ${TS}`,
    exchange: 'deribit',
    instrument: 'Deribit option name CCY-DMMMYY-STRIKE-C|P, e.g. BTC-26DEC26-100000-C (expiry 08:00 UTC that day)',
    underlying_price: 'price of the underlying (index or the expiry future), USD',
    mark_price: 'option mark price in the base coin (0.05 = 5% of one coin)',
    mark_iv: 'mark implied volatility in percent (52.3 = 52.3%)',
    open_interest: 'open interest in contracts; one BTC or ETH option contract is one coin',
    volume_24h: 'traded volume over the last 24 hours, contracts',
    bid: 'best bid in the base coin',
    ask: 'best ask in the base coin'
  },
  whale_transfer: {
    ts: `block time, ${TS}`,
    chain: `${listText(CHAIN_IDS, 'or')} (other names are stored, never listed)`,
    tx_hash: 'transaction hash (signature on Solana)',
    log_index: 'log index within the transaction (at most 4294967295); the legs of one multi-hop route share tx_hash',
    block_number: 'block number (slot on Solana)',
    address: 'the tracked wallet this row is about (lower-case hex on EVM chains, base58 on Solana)',
    counterparty: 'the other side of the transfer; a known exchange hot wallet makes it an exchange flow',
    event_type: 'transfer_in (tokens into address), transfer_out (out of address) or swap',
    token: 'token symbol, e.g. USDC, WETH, SOL',
    amount: 'amount in token units',
    usd_value: 'USD value at the time; whale events start at 100,000 USD'
  },
  onchain_metric: {
    ts: `time of the reading, ${TS}`,
    asset: 'asset, upper case, e.g. BTC',
    metric: 'exchange_netflow_usd, exchange_reserve_usd, mvrv or active_addresses (others are stored, never listed)',
    value: 'the reading, in the metric unit (USD, ratio or count); may be negative'
  }
}

function fieldSchema(kind: RecordKind, f: FieldSpec): TSchema {
  const description = DESCRIPTIONS[kind][f.name]
  const o = description === undefined ? {} : { description }
  switch (f.type) {
    case 'ts':
      return Type.Integer({ minimum: MIN_RECORD_TS_MS, maximum: MAX_RECORD_TS_MS, ...o })
    case 'string':
      return Type.String({ minLength: 1, maxLength: MAX_RECORD_STRING, pattern: WELL_FORMED, ...o })
    case 'float':
      return Type.Number({ ...(f.nonNegative ? { minimum: 0 } : {}), ...o })
    case 'uint':
      return Type.Integer({ minimum: f.min ?? 0, maximum: f.max ?? Number.MAX_SAFE_INTEGER, ...o })
    case 'enum':
      return Type.Union(
        f.values!.map((v) => Type.Literal(v)),
        o
      )
  }
}

function recordSchema(kind: RecordKind): TObject {
  const properties: Record<string, TSchema> = {
    kind: Type.Optional(Type.Literal(kind, { description: 'optional; must name the kind of the URL when given' }))
  }
  for (const f of KIND_SPECS[kind].fields) {
    const s = fieldSchema(kind, f)
    // optional fields may be absent or null (stored as NULL)
    properties[f.name] = f.optional ? Type.Optional(Type.Union([s, Type.Null()])) : s
  }
  return Type.Object(properties, {
    title: `${kind} record`,
    description: `one line of POST /v1/admin/ingest/${kind}; unknown fields are rejected (docs/records.md)`,
    additionalProperties: false
  })
}

/** The schema of each record kind, keyed by kind (the `{kind}` of the ingest URL). */
export const RECORD_SCHEMAS: Readonly<Record<RecordKind, TObject>> = Object.fromEntries(
  RECORD_KINDS.map((k) => [k, recordSchema(k)])
) as Record<RecordKind, TObject>

/** Any one record; which one a body holds is chosen by the URL's `{kind}`. */
export const IngestRecord = Type.Union(
  RECORD_KINDS.map((k) => RECORD_SCHEMAS[k]),
  { description: 'one normalized record; the kind is the {kind} of the URL' }
)
