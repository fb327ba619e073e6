/**
 * @module
 * Schemas of the token watch list and the verdict history (`/v1/node/{chain}/watch`,
 * `/v1/node/{chain}/token-history/{token}`; docs/node-intel.md, "Watch list and re-checks").
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { NODE_INTEL_PATHS } from '../../catalog/chains.js'
import { IntParam } from './params.js'
import { ADDRESS_PATTERN } from './node.js'

const nullable = <T extends TSchema>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description === undefined ? {} : { description })
const Address = (description: string) => Type.String({ pattern: ADDRESS_PATTERN, description })
const CHAIN = Type.String({ enum: [...NODE_INTEL_PATHS] })

export const WatchBody = Type.Object(
  {
    token: Address(
      'the token contract to re-check. Rule: in mixed case the EIP-55 checksum must be right; an address without code answers 404 not_a_contract'
    )
  },
  { additionalProperties: false, description: 'unknown fields are refused (400)' }
)

const tax = (what: string) =>
  nullable(Type.Number({ minimum: 0, maximum: 100 }), `${what} tax, percent (null: the step did not run)`)

export const VerdictPoint = Type.Object({
  verdict: Type.String({ enum: ['ok', 'high_tax', 'honeypot', 'no_liquidity', 'unknown'] }),
  is_honeypot: nullable(Type.Boolean()),
  method: Type.String({ description: 'the simulation method that answered' }),
  buy_tax_pct: tax('buy'),
  sell_tax_pct: tax('sell'),
  transfer_tax_pct: tax('transfer'),
  block_number: Type.Integer({ description: 'the head block the check ran at' }),
  checked_at: Type.String({ format: 'date-time' }),
  reasons: Type.Array(Type.String())
})

export const Trigger = Type.Object({
  kind: Type.String({
    enum: ['watch', 'owner_tx', 'log'],
    description:
      "watch: the token's first check on the watch list; owner_tx: its owner sent it a transaction; log: it emitted an ownership, fee, pause or blacklist event"
  }),
  tx_hash: nullable(Type.String(), 'the transaction that caused the re-check'),
  block_number: nullable(Type.Integer()),
  detail: nullable(Type.String(), 'the event signature (log) or the 4-byte selector the owner called (owner_tx)'),
  from: nullable(Type.String(), 'the owner who sent it (owner_tx)')
})

const WATCHED = Type.Object({
  token: Address('the token, checksummed'),
  added_at: Type.String({ format: 'date-time' }),
  verdict: nullable(VerdictPoint, 'the last verdict recorded; null until the first check succeeded')
})

export const WatchCreated = Type.Object({
  chain: CHAIN,
  ...WATCHED.properties,
  created: Type.Boolean({ description: 'false: the key already watched the token (nothing changed)' }),
  watched: Type.Integer({ description: 'tokens the key watches, all chains together' }),
  limit: Type.Integer({ description: 'tokens a key may watch (NODEINTEL_WATCH_PER_KEY)' })
})

export const WatchList = Type.Object({
  chain: CHAIN,
  watched: Type.Integer({ description: 'tokens the key watches, all chains together' }),
  limit: Type.Integer({ description: 'tokens a key may watch (NODEINTEL_WATCH_PER_KEY)' }),
  tokens: Type.Array(WATCHED, { description: "the key's tokens on this chain, oldest first" })
})

export const WatchRemoved = Type.Object({ chain: CHAIN, token: Address('the token'), watching: Type.Boolean() })

export const HistoryQuery = Type.Object({
  limit: Type.Optional(IntParam(1, 500, { description: 'rows per page', default: 100 })),
  offset: Type.Optional(IntParam(0, 100_000, { description: 'rows to skip (newest first)', default: 0 }))
})

export const HistoryResponse = Type.Object({
  chain: CHAIN,
  token: Address('the token, checksummed'),
  total: Type.Integer({ description: 'rows stored for the token' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  history: Type.Array(
    Type.Object({
      ...VerdictPoint.properties,
      changed: Type.Array(Type.String(), {
        description:
          'what differs from the row before: verdict, buy_tax_pct, sell_tax_pct, transfer_tax_pct (empty on the first row)'
      }),
      trigger: Trigger
    }),
    { description: 'newest first' }
  )
})
