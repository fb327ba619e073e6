/**
 * @module
 * Schemas of node intelligence (`/v1/node/*`, docs/node-intel.md): honeypot check, token risk score, node
 * health and new pairs, for BSC (`bsc`) and Avalanche C-Chain (`avax`) on the operator's own nodes.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { EVM_SPECS, NODE_INTEL_CHAINS, NODE_INTEL_PATHS } from '../../catalog/chains.js'
import { listText } from '../../catalog/text.js'
import { oneOf } from '../../engine/symbols/grammar.js'
import { EnumParam, IntParam } from './params.js'

/** `WBNB or WAVAX`: the wrapped native coin of each node-intelligence chain */
const WRAPPED_SYMBOLS = listText(
  NODE_INTEL_CHAINS.map((c) => EVM_SPECS[c.chain].wrappedSymbol),
  'or'
)
/** `BSC|AVAX`: the variable prefixes of the node-intelligence chains */
const PATH_PREFIXES = NODE_INTEL_PATHS.map((p) => p.toUpperCase()).join('|')

/** A 20-byte hex address as `{token}` takes it (server/routes/node.ts parseToken). */
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$'

/** `{chain}`: a node-intelligence chain, case-insensitive (parseChain lower-cases it). */
const ChainPathParam = Type.String({
  pattern: `^${oneOf(NODE_INTEL_PATHS)}$`,
  description: `${NODE_INTEL_PATHS.join(' or ')}, case-insensitive`
})

/** The path parameters of `/v1/node/{chain}/...` (for the document; the handler checks them). */
export const ChainPath = Type.Object({ chain: ChainPathParam })

/** The path parameters of `/v1/node/{chain}/<check>/{token}`. */
export const TokenPath = Type.Object({
  chain: ChainPathParam,
  token: Type.String({
    pattern: ADDRESS_PATTERN,
    description:
      'the token contract. Rule: in mixed case the EIP-55 checksum must be right (lower or upper case has none)'
  })
})

const nullable = <T extends TSchema>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description === undefined ? {} : { description })
const Address = (description: string) => Type.String({ pattern: ADDRESS_PATTERN, description })
const DateTime = (description: string) => Type.String({ format: 'date-time', description })

const FRESH = EnumParam(['0', '1'] as const, {
  description: '1: compute anew instead of answering from the cache (NODEINTEL_CACHE_MS, default 15 s)',
  default: '0'
})

export const CheckQuery = Type.Object({ fresh: Type.Optional(FRESH) })

export const HealthQuery = Type.Object({
  chain: Type.Optional(EnumParam(NODE_INTEL_PATHS, { description: 'one chain; default both' }))
})

export const NewPairsQuery = Type.Object({
  limit: Type.Optional(IntParam(1, 200, { description: 'pairs per page', default: 50 })),
  offset: Type.Optional(IntParam(0, 100_000, { description: 'pairs to skip (newest first)', default: 0 }))
})

const VERDICT = Type.String({
  enum: ['ok', 'high_tax', 'honeypot', 'no_liquidity', 'unknown'],
  description:
    'ok; high_tax: a tax above NODEINTEL_HIGH_TAX_PCT; honeypot: approve or sell reverted, the sell returned nothing, or sell tax >= NODEINTEL_HONEYPOT_TAX_PCT; no_liquidity: no pair with the wrapped native (or an empty one); unknown: the buy failed, or no simulation (bytecode_only)'
})
const METHOD = Type.String({
  enum: ['simulate_v1_wallet', 'probe_contract', 'probe_constructor', 'bytecode_only'],
  description:
    "which simulation answered. simulate_v1_wallet: a fresh wallet's own transactions (buy, transfer, approve, sell) in successive blocks of one eth_simulateV1, plus the probe contract's run for comparison; probe_contract: one eth_call of the probe contract injected by state override (nodes without eth_simulateV1, or when the simulation failed); probe_constructor: the probe contract was refused a step that the same probe run by its constructor (an address without code at the time) passed, and the constructor's run answered; bytecode_only: the node refuses overrides, no simulation"
})
const pct = (what: string) =>
  nullable(Type.Number({ minimum: 0, maximum: 100 }), `${what} tax, percent (null: the step did not run)`)
const gas = (what: string) =>
  nullable(
    Type.Integer({ minimum: 0 }),
    `gas of the ${what}: the wallet's transaction (simulate_v1_wallet) or the call inside the probe`
  )

export const Simulation = Type.Object({
  buy_ok: Type.Boolean({ description: 'the buy through the router delivered tokens' }),
  sell_ok: Type.Boolean({ description: 'selling half of them back returned the wrapped native' }),
  transfer_ok: Type.Boolean({ description: 'a wallet transfer to a fresh address succeeded' }),
  buy_tax_pct: pct('buy: (router quote - received) / quote;'),
  sell_tax_pct: pct('sell: the larger of tokens not reaching the pair and (quote - received) / quote;'),
  transfer_tax_pct: pct('transfer: (sent - received) / sent;'),
  buy_gas: gas('buy'),
  sell_gas: gas('sell'),
  transfer_gas: gas('transfer'),
  revert_reason: nullable(Type.String(), "the first failing step and its reason, e.g. 'sell: sells disabled'")
})

export const Liquidity = Type.Object({
  base_symbol: Type.String({ description: WRAPPED_SYMBOLS }),
  reserve_base: Type.String({ description: "the pair's wrapped-native reserve, whole coins (decimal string)" }),
  reserve_token: Type.String({
    description: "the pair's token reserve, whole tokens (raw units when decimals are unknown)"
  }),
  usd: nullable(Type.Number(), 'both sides in USD at the native coin price this service holds; null when not priced')
})

export const HoneypotResponse = Type.Object({
  chain: Type.String({ enum: [...NODE_INTEL_PATHS] }),
  token: Address('the token, checksummed'),
  block_number: Type.Integer({ description: 'the head block the check ran at' }),
  checked_at: DateTime('when the check ran (a cached answer keeps its time)'),
  is_honeypot: nullable(Type.Boolean(), 'null when the check could not tell (no_liquidity, unknown)'),
  verdict: VERDICT,
  simulation: nullable(Simulation, 'null without a simulation (no liquidity, bytecode_only, probe failure)'),
  pair: nullable(Address('the V2 pair with the wrapped native traded through')),
  liquidity: nullable(Liquidity),
  method: METHOD,
  reasons: Type.Array(Type.String(), {
    description:
      "why the verdict, for a person. With simulate_v1_wallet (or probe_constructor), a step the probe contract failed but the wallet (or the constructor probe) passed is listed as 'contract-only behaviour: ...' (the token treats contracts differently)"
  })
})

const FACTOR = Type.Object({
  id: Type.String({ description: 'factor id (docs/node-intel.md, "Risk score")' }),
  weight: Type.Integer({ description: 'points it adds to the score' }),
  evidence: Type.String({ description: 'what was found' })
})

export const RiskResponse = Type.Object({
  chain: Type.String({ enum: [...NODE_INTEL_PATHS] }),
  token: Address('the token, checksummed'),
  block_number: Type.Integer(),
  checked_at: DateTime('when the score was computed'),
  score: Type.Integer({
    minimum: 0,
    maximum: 100,
    description: 'sum of the factor weights, clamped; a honeypot is 100'
  }),
  level: Type.String({
    enum: ['low', 'medium', 'high', 'critical'],
    description: 'low < 20 <= medium < 50 <= high < 80 <= critical'
  }),
  factors: Type.Array(FACTOR, { description: 'the factors that apply' }),
  metadata: Type.Object({
    name: nullable(Type.String()),
    symbol: nullable(Type.String()),
    decimals: nullable(Type.Integer()),
    total_supply: nullable(Type.String({ description: 'smallest units, decimal string' })),
    owner: nullable(Address('owner() or getOwner()')),
    owner_renounced: nullable(Type.Boolean(), 'owner is 0x0 or 0x…dEaD; null without an owner function')
  }),
  contract: Type.Object({
    code_size: Type.Integer({ description: 'runtime bytes' }),
    proxy: nullable(Type.String({ enum: ['eip1967', 'beacon', 'eip1167'] })),
    implementation: nullable(Address('the proxy implementation')),
    created_block: nullable(Type.Integer(), 'creation block (needs a node with historical state)'),
    created_at: nullable(DateTime('creation block time'))
  }),
  holders: Type.Object({
    owner_pct: nullable(Type.Number(), 'supply held by the owner, percent'),
    pair_pct: nullable(Type.Number(), 'supply in the pair, percent'),
    lp_burned_pct: nullable(Type.Number(), 'LP supply at 0x0 (beyond the minimum liquidity) or 0x…dEaD, percent'),
    lp_locked_pct: nullable(
      Type.Number(),
      `LP supply held by the configured lockers (<${PATH_PREFIXES}>_LP_LOCKERS), percent; null when none are configured`
    )
  }),
  liquidity: nullable(Liquidity),
  honeypot: Type.Object({
    verdict: VERDICT,
    is_honeypot: nullable(Type.Boolean()),
    method: METHOD,
    simulation: nullable(Simulation),
    pair: nullable(Address('pair')),
    reasons: Type.Array(Type.String())
  })
})

const NODE = Type.Object({
  url: Type.String({ description: 'scheme, host and port (paths and credentials hidden)' }),
  reachable: Type.Boolean(),
  chain_id: nullable(Type.Integer()),
  chain_id_ok: nullable(Type.Boolean()),
  head_block: nullable(Type.Integer()),
  head_age_s: nullable(Type.Integer({ description: 'now - head block time, seconds' })),
  syncing: nullable(Type.Boolean(), 'eth_syncing; null when not answered'),
  peers: nullable(Type.Integer(), 'net_peerCount; null when the node does not answer it'),
  client_version: nullable(Type.String()),
  latency_ms: nullable(Type.Number(), 'median of 3 eth_blockNumber round trips'),
  features: Type.Object({
    state_override: nullable(Type.Boolean(), 'eth_call honours state overrides (needed for the simulation)'),
    simulate_v1: nullable(
      Type.Boolean(),
      "eth_simulateV1 with a state override answers (the honeypot check then simulates a wallet's transactions)"
    ),
    debug_trace: nullable(Type.Boolean(), 'debug_traceCall with callTracer answers')
  }),
  avalanche_health: nullable(
    Type.Object({ reachable: Type.Boolean(), healthy: nullable(Type.Boolean()) }),
    "avalanchego's /ext/health (avax nodes at /ext/bc/C/rpc only)"
  ),
  error: nullable(Type.String())
})

const CLIENT_STATS = Type.Object(
  {
    calls: Type.Integer(),
    errors: Type.Integer({ description: 'calls that ended chain_unavailable' }),
    rpc_errors: Type.Integer({ description: 'errors answered by the node (reverts, unknown methods)' }),
    failovers: Type.Integer(),
    throttled: Type.Integer({ description: 'calls that waited for the rate limit' }),
    rate_refused: Type.Integer(),
    last_error: nullable(Type.String()),
    last_error_at: nullable(Type.Integer({ description: 'epoch ms' })),
    latency_ms_p50: nullable(Type.Number())
  },
  { additionalProperties: true, description: "the chain's shared client (whale sources use the same one)" }
)

export const HealthResponse = Type.Object({
  status: Type.String({
    enum: ['ok', 'degraded', 'down'],
    description: 'the worst configured chain; down when none is configured or answers'
  }),
  chains: Type.Array(
    Type.Object({
      chain: Type.String({ enum: [...NODE_INTEL_PATHS] }),
      status: Type.String({ enum: ['ok', 'degraded', 'down', 'chain_mismatch', 'not_configured'] }),
      rpc_variable: Type.String({ description: 'the variable that sets the node' }),
      expected_chain_id: Type.Integer(),
      nodes: Type.Array(NODE),
      simulate_v1: nullable(
        Type.Boolean(),
        "the chain's honeypot checks simulate a wallet with eth_simulateV1 (true) or call the probe contract (false); null when the node did not answer"
      ),
      client: nullable(CLIENT_STATS),
      rechecks: nullable(
        Type.Object({
          watched: Type.Integer({ minimum: 0, description: 'tokens on the watch list (keys and new pairs)' }),
          last_block: nullable(Type.Integer(), 'the last block scanned for triggers'),
          triggers: Type.Integer({ minimum: 0, description: 'owner transactions and events seen' }),
          rechecks: Type.Integer({ minimum: 0 }),
          changes: Type.Integer({ minimum: 0, description: 'verdict changes stored and announced' }),
          errors: Type.Integer({ minimum: 0 }),
          dropped: Type.Integer({ minimum: 0, description: 'triggers dropped because the re-check queue was full' })
        }),
        'the watch list re-checks of the chain (docs/node-intel.md "Watch list and re-checks"); null when the chain runs none'
      )
    })
  )
})

const NEW_PAIR = Type.Object({
  chain: Type.String({ enum: [...NODE_INTEL_PATHS] }),
  pair: Address('the new pair'),
  token0: Address('token0'),
  token1: Address('token1'),
  token: Address('the side that is not the wrapped native'),
  paired_with_native: Type.Boolean(),
  block_number: Type.Integer(),
  tx_hash: Type.String(),
  log_index: Type.Integer(),
  detected_at: DateTime('when this service saw the PairCreated log'),
  verdict: nullable(
    VERDICT,
    'the honeypot verdict computed when the pair appeared; null while pending or not simulated'
  ),
  is_honeypot: nullable(Type.Boolean()),
  method: nullable(METHOD),
  reasons: Type.Array(Type.String())
})

export const NewPairsResponse = Type.Object({
  chain: Type.String({ enum: [...NODE_INTEL_PATHS] }),
  total: Type.Integer({ description: 'pairs remembered (NODEINTEL_NEW_PAIRS_KEEP at most)' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  pairs: Type.Array(NEW_PAIR, { description: 'newest first' })
})
