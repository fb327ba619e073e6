/**
 * @module
 * Node intelligence endpoints (docs/node-intel.md): honeypot check, token risk score, node health and new
 * pairs for `bsc` and `avax`, answered from the operator's own nodes (BSC_RPC_URL, AVAX_RPC_URL). Keyed,
 * plans with the `nodeintel` feature (pro, enterprise). Not market data: no warm-up wait, no synthetic
 * label. Answers from the per-token cache say `x-tidewatch-cache: hit`.
 */
import type { Address } from 'viem'
import { ApiError } from '../../engine/errors.js'
import { nodeIntelPathList } from '../../catalog/chains.js'
import { checksumAddress } from '../../engine/chain/address.js'
import { NODE_INTEL_CHAINS, type NodeIntelChain } from '../../engine/chain/chains.js'
import type { RecheckStatsOf } from '../../engine/nodeintel/health.js'
import type { NewPairsWatcher } from '../../engine/nodeintel/new-pairs.js'
import type { NodeIntelLookup } from '../../engine/nodeintel/lookup.js'
import type { ChainIntel } from '../../engine/nodeintel/service.js'
import {
  ADDRESS_PATTERN,
  ChainPath,
  CheckQuery,
  HealthQuery,
  HealthResponse,
  HoneypotResponse,
  NewPairsQuery,
  NewPairsResponse,
  RiskResponse,
  TokenPath
} from '../../schemas/api/node.js'
import type { OperationNotes } from '../operation-notes.js'
import { json, type Handler, type Route } from '../http/types.js'

export interface NodeRoutesDeps {
  readonly service: NodeIntelLookup
  /** the chain's new-pairs watcher (undefined: the chain has no node, or NODEINTEL_NEW_PAIRS_POLL_MS=0) */
  readonly newPairs: (chain: NodeIntelChain) => NewPairsWatcher | undefined
  /** the chain's re-check counters (null: it runs no re-checks) */
  readonly rechecks?: RecheckStatsOf
}

export function parseChain(raw: string | undefined): NodeIntelChain {
  const v = (raw ?? '').toLowerCase()
  if (!(NODE_INTEL_CHAINS as readonly string[]).includes(v)) {
    throw new ApiError(
      'invalid_parameter',
      `chain must be ${nodeIntelPathList('or')} (got '${(raw ?? '').slice(0, 40)}')`,
      {
        param: 'chain'
      }
    )
  }
  return v as NodeIntelChain
}

const TOKEN_RE = new RegExp(ADDRESS_PATTERN)

export function parseToken(raw: string | undefined): Address {
  const v = raw ?? ''
  if (!TOKEN_RE.test(v)) {
    throw new ApiError(
      'invalid_parameter',
      `token must be a 0x-prefixed 20-byte hex address (got '${v.slice(0, 50)}')`,
      {
        param: 'token'
      }
    )
  }
  // one checksum: a mixed- or upper-case token must carry it (isAddress strict, as viem), the answer names it
  const checksummed = checksumAddress(v as Address)
  if (v !== v.toLowerCase() && checksummed !== v) {
    throw new ApiError(
      'invalid_parameter',
      `token ${v} has a wrong EIP-55 checksum (send it lower-case or correctly mixed-case)`,
      {
        param: 'token'
      }
    )
  }
  return checksummed
}

const CACHE_HIT: Readonly<Record<string, string>> = Object.freeze({ 'x-tidewatch-cache': 'hit' })
const CACHE_MISS: Readonly<Record<string, string>> = Object.freeze({ 'x-tidewatch-cache': 'miss' })
/** the answer's cache header (json() copies it into the answer's own headers) */
const cacheHeader = (hit: boolean): Record<string, string> => (hit ? CACHE_HIT : CACHE_MISS)

const common = { access: 'key', feature: 'nodeintel', data: false, tags: ['node'] } as const

/** The path rules, stated in each description (the validator of path segments is the handler's). */
const CHAIN_RULE = ` {chain} is ${nodeIntelPathList('or')}, case-insensitive; anything else answers 400 invalid_parameter naming ${NODE_INTEL_CHAINS.length === 2 ? 'both' : 'each'}.`
const TOKEN_RULE =
  ' Rule: {token} is a 0x-prefixed 20-byte hex address, lower-case or with a correct EIP-55 checksum; anything else answers 400 invalid_parameter.'

export function nodeRoutes(d: NodeRoutesDeps): Route[] {
  /** a `/v1/node/:chain/<check>/:token` handler: parameters checked, the answer from the cache or fresh */
  const tokenCheck =
    (run: (intel: ChainIntel, token: Address, fresh: boolean) => Promise<{ value: unknown; hit: boolean }>): Handler =>
    async (req) => {
      // both parameters are checked (400) before the chain's node is needed (503)
      const chain = parseChain(req.params['chain'])
      const token = parseToken(req.params['token'])
      const r = await run(d.service.get(chain), token, req.q['fresh'] === '1')
      return json(200, r.value, cacheHeader(r.hit))
    }
  return [
    {
      ...common,
      method: 'GET',
      path: '/v1/node/:chain/honeypot/:token',
      pathParams: TokenPath,
      summary: 'Honeypot check: a simulated buy, sell and transfer on your own node on top of the latest block',
      description:
        "Where the node runs eth_simulateV1, a fresh wallet's own transactions in successive simulated blocks (buy through the configured V2 router: PancakeSwap V2 on bsc, Trader Joe V1 on avax; transfer to a fresh address; approve; sell half back), with the probe contract's run in the last block for comparison (method simulate_v1_wallet; a step refused to the contract but not to the wallet is named in reasons). Otherwise one eth_call to a probe contract injected by state override doing the same steps (method probe_contract). Nothing is deployed and no transaction is sent. Taxes are measured against router quotes; verdict thresholds are configurable (docs/node-intel.md)." +
        CHAIN_RULE +
        TOKEN_RULE,
      query: CheckQuery,
      response: HoneypotResponse,
      handler: tokenCheck((intel, token, fresh) => intel.honeypot(token, fresh))
    },
    {
      ...common,
      method: 'GET',
      path: '/v1/node/:chain/token-risk/:token',
      pathParams: TokenPath,
      summary: 'Token risk score 0-100 with its level and factors (simulation, owner powers, proxy, liquidity, age)',
      description:
        'The honeypot simulation plus what the node can tell: token metadata and owner, risky functions and opcodes in the bytecode (and the proxy implementation), LP burned, owner holdings, contract age (needs historical state). Each factor carries its weight and evidence; the model is in docs/node-intel.md.' +
        CHAIN_RULE +
        TOKEN_RULE,
      query: CheckQuery,
      response: RiskResponse,
      handler: tokenCheck((intel, token, fresh) => intel.risk(token, fresh))
    },
    {
      ...common,
      method: 'GET',
      path: '/v1/node/health',
      summary: 'Health of the node-intelligence nodes: chain id, head age, sync, peers, latency, features',
      description:
        'Each configured node checked on its own (no failover): eth_chainId against the chain, head block and its age, eth_syncing, net_peerCount where answered, web3_clientVersion, latency (median of 3), state-override, eth_simulateV1 and debug_traceCall support (and per chain whether honeypot checks simulate a wallet), and avalanchego /ext/health for avax URLs ending in /ext/bc/C/rpc.',
      query: HealthQuery,
      response: HealthResponse,
      handler: async (req) => {
        const only = req.q['chain'] === undefined ? undefined : parseChain(req.q['chain'] as string)
        // the probes' code (viem) loads on the first health check, not at start
        const { nodeHealthReport } = await import('../../engine/nodeintel/health.js')
        return json(200, await nodeHealthReport(d.service, only, d.rechecks))
      }
    },
    {
      ...common,
      method: 'GET',
      path: '/v1/node/:chain/new-pairs',
      pathParams: ChainPath,
      summary: "New pairs of the chain's DEX factory, each with its honeypot verdict, newest first",
      description:
        "PairCreated events of the configured factory, read as blocks arrive (from 200 blocks before the start); each pair's token is checked for a honeypot as it appears. Also pushed on the stream channel newpairs:<chain>." +
        CHAIN_RULE,
      query: NewPairsQuery,
      response: NewPairsResponse,
      handler: (req) => {
        const chain = parseChain(req.params['chain'])
        d.service.get(chain) // 503 chain_not_configured naming the variable
        const w = d.newPairs(chain)
        const limit = req.q['limit'] as number
        const offset = req.q['offset'] as number
        const page = w ? w.list(limit, offset) : { total: 0, pairs: [] }
        return json(200, { chain, total: page.total, limit, offset, pairs: page.pairs })
      }
    }
  ]
}

const UNAVAILABLE = {
  description:
    "chain_unavailable: the chain's node did not answer in time or refused the connection (the message names the chain); chain_mismatch: the node reports another chain id (names both); chain_not_configured: no node for the chain (names the variable to set)",
  headers: {
    'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } }
  }
}
const NOT_A_CONTRACT = { description: 'not_a_contract: the address holds no contract code on the chain' }

/** Statuses the handlers answer themselves (server/openapi-operations.ts). */
export const NODE_OPERATION_NOTES: Readonly<Record<string, OperationNotes>> = {
  'GET /v1/node/{chain}/honeypot/{token}': { responses: { '404': NOT_A_CONTRACT, '503': UNAVAILABLE } },
  'GET /v1/node/{chain}/token-risk/{token}': { responses: { '404': NOT_A_CONTRACT, '503': UNAVAILABLE } },
  'GET /v1/node/{chain}/new-pairs': { responses: { '503': UNAVAILABLE } }
}
