/**
 * @module
 * Parameter and response schemas of the whale endpoints (service spec "Whales").
 */
import { AS_OF_PARAMS, PointInTimeMember } from './as-of.js'
import { Type } from '@sinclair/typebox'
import { CHAINS } from '../../engine/records/types.js'
import { EnumParam, IntParam, ListParam, StringParam } from './params.js'

export const EventsQuery = Type.Object({
  chain: Type.Optional(ListParam(CHAINS, { description: `chains; default all ${CHAINS.length}` })),
  hours: Type.Optional(IntParam(1, 168, { description: 'window, hours back from now', default: 24 })),
  significance: Type.Optional(
    EnumParam(['low', 'medium', 'high', 'critical'] as const, {
      description: 'minimum significance (low >= $100k, medium >= $500k, high >= $2.5M, critical >= $10M)',
      default: 'medium'
    })
  ),
  event_type: Type.Optional(
    EnumParam(['transfer_in', 'transfer_out', 'swap'] as const, { description: 'default all' })
  ),
  limit: Type.Optional(IntParam(1, 200, { description: 'events per page', default: 50 })),
  offset: Type.Optional(IntParam(0, 10_000, { description: 'events to skip (page in steps of limit)', default: 0 })),
  snapshot: Type.Optional(
    StringParam({
      description:
        'the snapshot token of the first page: later pages then list exactly the same events even while new data arrives. Rule: a token this server answered within the 7-day whale window; any other answers 400 (start again without it)',
      pattern: '^[0-9]{1,15}-[0-9]{1,15}$',
      maxLength: 32
    })
  )
})

const EVENT = Type.Object({
  id: Type.String({ description: 'chain:tx_hash:log_index:address of the first folded row (unique per event)' }),
  ts: Type.Integer({ description: 'first folded row, epoch ms' }),
  last_ts: Type.Integer({ description: 'newest folded row, epoch ms' }),
  chain: Type.String(),
  address: Type.String({ description: 'tracked wallet' }),
  counterparty: Type.String(),
  event_type: Type.String({ enum: ['transfer_in', 'transfer_out', 'swap'] }),
  token: Type.String(),
  amount: Type.Number({ description: 'token units' }),
  usd_value: Type.Number(),
  significance: Type.String({ enum: ['low', 'medium', 'high', 'critical'] }),
  tx_hash: Type.String(),
  block_number: Type.Integer(),
  repeat_count: Type.Integer({ description: 'raw rows folded into this event' }),
  collapsed: Type.Union([Type.Literal('multi_hop'), Type.Literal('wash_loop'), Type.Null()]),
  // the fields below are only on events the chain sources derived (docs/whales.md "Chain events")
  hops: Type.Optional(Type.Integer({ description: 'chain events: Swap logs of the transaction (0 for transfers)' })),
  pools: Type.Optional(Type.Array(Type.String(), { description: 'chain events: distinct pools of those Swap logs' })),
  token_in: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'chain swaps: the asset given (token is the asset received)'
    })
  ),
  amount_in: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'chain swaps: units of token_in' })),
  decimals_unknown: Type.Optional(
    Type.Union([Type.Literal('token'), Type.Literal('token_in'), Type.Null()], {
      description:
        'chain swaps: the side that is a token off the watch list (decimals unknown): named by its contract address, its amount (amount or amount_in) in raw integer units; usd_value comes from the other side. null when both sides are known'
    })
  ),
  price_source: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: 'chain events: stablecoin or candles_1m:<exchanges>' })
  ),
  label: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'chain events: watch-list label' })),
  internal: Type.Optional(
    Type.Boolean({ description: 'chain events: between two wallets of one owner, left out of exchange flows' })
  )
})

export const EventsResponse = Type.Object({
  total: Type.Integer({ description: 'raw rows in the window matching the filters' }),
  distinct: Type.Integer({ description: 'events after collapsing near-duplicates, matching the filters' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  snapshot: Type.String({ description: 'pass back to page over the same data' }),
  events: Type.Array(EVENT)
})

export const SummaryQuery = Type.Object({ ...AS_OF_PARAMS })

export const SummaryResponse = Type.Object({
  chain_counts: Type.Record(Type.String(), Type.Object({ event_count: Type.Integer(), volume_usd: Type.Number() })),
  net_flows: Type.Record(
    Type.String(),
    Type.Object({
      inflow: Type.Number(),
      outflow: Type.Number(),
      net: Type.Number(),
      direction: Type.String({ enum: ['inflow', 'outflow', 'neutral'] })
    })
  ),
  top_movers: Type.Array(
    Type.Object({
      address: Type.String(),
      chain: Type.String(),
      volume_usd_24h: Type.Number(),
      event_count_24h: Type.Integer()
    })
  ),
  total_volume_24h: Type.Number(),
  active_wallets: Type.Integer(),
  total_whales_tracked: Type.Integer(),
  as_of: Type.String({ format: 'date-time' }),
  point_in_time: Type.Optional(PointInTimeMember)
})
