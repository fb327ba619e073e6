/**
 * @module
 * The token watch list and the verdict history of node intelligence (docs/node-intel.md, "Watch list and
 * re-checks"): a key registers tokens for re-checks (POST/GET/DELETE /v1/node/{chain}/watch) and reads a
 * watched token's verdict history (GET /v1/node/{chain}/token-history/{token}). Keyed, the `nodeintel`
 * feature, like the other node routes.
 */
import { getAddress } from '../../engine/chain/address.js'
import { nodeIntelPathList } from '../../catalog/chains.js'
import type { NodeIntelChain } from '../../engine/chain/chains.js'
import { ApiError } from '../../engine/errors.js'
import type { TokenRecheck } from '../../engine/nodeintel/recheck.js'
import type { NodeIntelLookup } from '../../engine/nodeintel/lookup.js'
import type { WatchList as Watches } from '../../engine/nodeintel/watch-list.js'
import type { Store } from '../../engine/store/store.js'
import { ChainPath, TokenPath } from '../../schemas/api/node.js'
import {
  HistoryQuery,
  HistoryResponse,
  WatchBody,
  WatchCreated,
  WatchList,
  WatchRemoved
} from '../../schemas/api/node-watch.js'
import { json, type Route } from '../http/types.js'
import type { OperationNotes } from '../operation-notes.js'
import { parseChain, parseToken } from './node.js'

/** What the routes ask of the watch list (engine/nodeintel/watch-list.ts). */
export type WatchListOps = Pick<Watches, 'checkLimit' | 'add' | 'count' | 'list' | 'remove'>

export interface WatchRoutesDeps {
  readonly service: NodeIntelLookup
  readonly store: Store
  readonly watches: WatchListOps
  readonly recheck: (chain: NodeIntelChain) => TokenRecheck | undefined
  readonly perKey: number
}

const common = { access: 'key', feature: 'nodeintel', data: false, tags: ['node'] } as const
const CHAIN_RULE = ` {chain} is ${nodeIntelPathList('or')}, case-insensitive; anything else answers 400 invalid_parameter.`

export function watchRoutes(d: WatchRoutesDeps): Route[] {
  /** the chain's re-checks, or 503 naming the variable when the chain has no node */
  const rechecks = (chain: NodeIntelChain): TokenRecheck => {
    d.service.get(chain) // 503 chain_not_configured naming the variable
    const r = d.recheck(chain)
    if (!r) throw new ApiError('unavailable', `re-checks of ${chain} tokens are off on this server`)
    return r
  }
  return [
    {
      ...common,
      method: 'POST',
      path: '/v1/node/:chain/watch',
      pathParams: ChainPath,
      status: 201,
      maxBodyBytes: 1024,
      body: WatchBody,
      response: WatchCreated,
      summary: 'Watch a token: re-check it when its owner acts and record each verdict change',
      description: `The token is checked at once (its first verdict history row) and again whenever its owner sends it a transaction or it emits an ownership, fee, pause or blacklist event; a changed verdict, or a tax moving by more than NODEINTEL_RECHECK_TAX_DELTA_PCT, is stored, pushed on tokenrisk:<chain> and sent as the TOKEN_RISK_CHANGED webhook event to this key's webhooks. Rule: a key watches at most ${d.perKey} tokens (NODEINTEL_WATCH_PER_KEY, all chains together); one more answers 403 naming the limit. Registering a token again changes nothing (created: false).${CHAIN_RULE}`,
      handler: async (req) => {
        const chain = parseChain(req.params['chain'])
        const token = parseToken(req.json!['token'] as string)
        const r = rechecks(chain)
        const keyId = req.key!.id
        d.watches.checkLimit(keyId, chain, token) // 403 before the node is asked
        const intel = d.service.get(chain)
        await intel.ready()
        const code = await intel.client.request('watch_code', (c) => c.getCode({ address: token }))
        const { requireContract } = await import('../../engine/nodeintel/honeypot-report.js')
        requireContract(chain, token, code) // 404 not_a_contract
        const { created, registration, verdict } = await d.watches.add(keyId, chain, token, r)
        return json(201, {
          chain,
          token,
          added_at: new Date(registration.created_ms).toISOString(),
          verdict,
          created,
          watched: d.watches.count(keyId),
          limit: d.perKey
        })
      }
    },
    {
      ...common,
      method: 'GET',
      path: '/v1/node/:chain/watch',
      pathParams: ChainPath,
      response: WatchList,
      summary: "The calling key's watched tokens on the chain, each with its last verdict",
      description: `Oldest first.${CHAIN_RULE}`,
      handler: (req) => {
        const chain = parseChain(req.params['chain'])
        const r = rechecks(chain)
        const keyId = req.key!.id
        const tokens = d.watches.list(keyId, chain).map((w) => ({
          token: w.token,
          added_at: new Date(w.created_ms).toISOString(),
          verdict: r.lastVerdict(w.token)
        }))
        return json(200, { chain, watched: d.watches.count(keyId), limit: d.perKey, tokens })
      }
    },
    {
      ...common,
      method: 'DELETE',
      path: '/v1/node/:chain/watch/:token',
      pathParams: TokenPath,
      response: WatchRemoved,
      summary: 'Stop watching a token (its verdict history stays)',
      description: `A token the key does not watch answers 404 not_found.${CHAIN_RULE}`,
      handler: async (req) => {
        const chain = parseChain(req.params['chain'])
        const token = parseToken(req.params['token'])
        rechecks(chain)
        if (!(await d.watches.remove(req.key!.id, chain, token))) {
          throw new ApiError('not_found', `this key does not watch ${token} on ${chain}`, { param: 'token' })
        }
        return json(200, { chain, token, watching: false })
      }
    },
    {
      ...common,
      method: 'GET',
      path: '/v1/node/:chain/token-history/:token',
      pathParams: TokenPath,
      query: HistoryQuery,
      response: HistoryResponse,
      summary: "A watched token's verdict history, newest first",
      description: `The first check of the token on the watch list, then each re-check that found a changed verdict or a tax moved by more than NODEINTEL_RECHECK_TAX_DELTA_PCT, with what changed and what triggered it. At most 500 rows per page (limit, offset). A token never checked on the watch list answers 404 not_found.${CHAIN_RULE}`,
      handler: async (req) => {
        const chain = parseChain(req.params['chain'])
        const token = getAddress(parseToken(req.params['token']))
        const limit = req.q['limit'] as number
        const offset = req.q['offset'] as number
        // the history reader (viem) loads on first use: this route answers without a configured node
        const { readHistory } = await import('../../engine/nodeintel/watch-store.js')
        const page = await readHistory(d.store, chain, token, limit, offset)
        if (page.total === 0) {
          throw new ApiError(
            'not_found',
            `${token} has no verdict history on ${chain}: it was never checked on the watch list (POST /v1/node/${chain}/watch)`,
            { param: 'token' }
          )
        }
        return json(200, { chain, token, total: page.total, limit, offset, history: page.rows })
      }
    }
  ]
}

const NOT_A_CONTRACT = { description: 'not_a_contract: the address holds no contract code on the chain' }
const UNAVAILABLE = {
  description:
    'chain_unavailable, chain_mismatch or chain_not_configured (docs/node-intel.md); unavailable: re-checks are off on this server'
}

/** Statuses the handlers answer themselves (server/openapi-operations.ts). */
export const WATCH_OPERATION_NOTES: Readonly<Record<string, OperationNotes>> = {
  'POST /v1/node/{chain}/watch': {
    responses: {
      '403': {
        description: 'forbidden: the key watches as many tokens as NODEINTEL_WATCH_PER_KEY allows (names the limit)'
      },
      '404': NOT_A_CONTRACT,
      '503': UNAVAILABLE
    }
  },
  'GET /v1/node/{chain}/watch': { responses: { '503': UNAVAILABLE } },
  'DELETE /v1/node/{chain}/watch/{token}': {
    responses: { '404': { description: 'not_found: the key does not watch the token' }, '503': UNAVAILABLE }
  },
  'GET /v1/node/{chain}/token-history/{token}': {
    responses: { '404': { description: 'not_found: the token was never checked on the watch list' } }
  }
}
