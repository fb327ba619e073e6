/**
 * @module
 * Node intelligence settings (docs/node-intel.md, "Configuration"), read once at start. Per chain: the V2
 * DEX the probe trades through and the wrapped native it trades with, defaulting to the mainnet contracts of
 * the chain's catalog entry (catalog/chains.ts: PancakeSwap V2 + WBNB on BSC, Trader Joe V1 + WAVAX on
 * Avalanche) and overridable for forks, other DEXes and test nodes. Verdict thresholds, the probe's trade size, the cache time and the new-pairs watcher.
 * The nodes themselves are `BSC_RPC_URL` / `AVAX_RPC_URL` (engine/chain/rpc-config.ts).
 */
import { getAddress, isAddress, parseEther, type Address } from 'viem'
import { ConfigError } from '../config/config-error.js'
import { envNumber, envValue, type Env } from '../config/env.js'
import { watchConfig, type WatchConfig } from './watch-config.js'
import {
  EVM_CHAINS,
  NODE_INTEL_CHAINS,
  nodeIntelChain,
  nodeIntelDefaults,
  type NodeIntelChain
} from '../chain/chains.js'

export interface NodeIntelDex {
  /** V2-style router (factory(), getAmountsOut, swapExactTokensForTokensSupportingFeeOnTransferTokens) */
  readonly router: Address
  /** its factory (PairCreated events, getPair) */
  readonly factory: Address
  /** the wrapped native token the probe buys with and pairs are looked up against */
  readonly wrappedNative: Address
  readonly dexName: string
  /** the USD stablecoin whose pair with the wrapped native prices the coin (engine/nodeintel/native-price.ts) */
  readonly usdToken: Address
  /** LP lockers whose LP holdings count as locked (`<BSC|AVAX>_LP_LOCKERS`; none by default: name the ones you trust) */
  readonly lpLockers: readonly Address[]
}

export interface NodeIntelConfig {
  readonly dex: Readonly<Record<NodeIntelChain, NodeIntelDex>>
  /** a buy, sell or transfer tax above this, percent, is `high_tax`. @default 10 */
  readonly highTaxPct: number
  /** a sell tax at or above this, percent, is a honeypot (you keep almost nothing). @default 90 */
  readonly honeypotTaxPct: number
  /** the probe's largest buy, wei of the native coin (it buys 0.5% of the pool's native side at most). @default 1 native */
  readonly probeMaxIn: bigint
  /** how long a honeypot or risk answer is reused for the same token, ms (`?fresh=1` bypasses). @default 15000 */
  readonly cacheMs: number
  /** the new-pairs watcher polls the factory's PairCreated logs every this many ms (0 = off). @default 3000 */
  readonly newPairsPollMs: number
  /** pairs remembered per chain for GET /v1/node/{chain}/new-pairs (oldest dropped). @default 1000 */
  readonly newPairsKeep: number
  /** the token watch list and its re-checks (watch-config.ts) */
  readonly watch: WatchConfig
}

function address(env: Env, name: string, def: Address): Address {
  const raw = envValue(env, name)
  if (raw === undefined) return def
  if (!isAddress(raw, { strict: false }))
    throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address (got '${raw}')`)
  return getAddress(raw)
}

/** A comma list of addresses (empty when unset). */
function addressList(env: Env, name: string): readonly Address[] {
  const raw = envValue(env, name)
  if (raw === undefined) return Object.freeze([])
  const out = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((a) => {
      if (!isAddress(a, { strict: false }))
        throw new ConfigError(`${name} must be a comma list of 0x addresses (got '${a}')`)
      return getAddress(a)
    })
  if (out.length > 20) throw new ConfigError(`${name} lists at most 20 addresses (got ${out.length})`)
  return Object.freeze(out)
}

function dex(env: Env, chain: NodeIntelChain): NodeIntelDex {
  const p = chain.toUpperCase()
  // mainnet defaults (catalog/chains.ts), checked against the deployed contracts' public code
  const m = nodeIntelDefaults(chain)
  const custom = envValue(env, `${p}_DEX_ROUTER`) !== undefined
  return Object.freeze({
    dexName: custom ? 'custom' : m.dexName,
    router: address(env, `${p}_DEX_ROUTER`, getAddress(m.router)),
    factory: address(env, `${p}_DEX_FACTORY`, getAddress(m.factory)),
    wrappedNative: address(env, `${p}_WRAPPED_NATIVE`, EVM_CHAINS[nodeIntelChain(chain)].wrappedNative),
    usdToken: address(env, `${p}_USD_TOKEN`, getAddress(m.usdToken)),
    lpLockers: addressList(env, `${p}_LP_LOCKERS`)
  })
}

export function nodeIntelConfig(env: Env): NodeIntelConfig {
  const highTaxPct = envNumber(env, 'NODEINTEL_HIGH_TAX_PCT', 10, 0, 100)
  const honeypotTaxPct = envNumber(env, 'NODEINTEL_HONEYPOT_TAX_PCT', 90, 0, 100)
  if (honeypotTaxPct < highTaxPct) {
    throw new ConfigError(
      `NODEINTEL_HONEYPOT_TAX_PCT (${honeypotTaxPct}) must not be below NODEINTEL_HIGH_TAX_PCT (${highTaxPct})`
    )
  }
  const maxIn = envValue(env, 'NODEINTEL_PROBE_MAX_IN') ?? '1'
  if (!/^\d+(\.\d{1,18})?$/.test(maxIn) || parseEther(maxIn) === 0n) {
    throw new ConfigError(
      `NODEINTEL_PROBE_MAX_IN must be a positive amount of the native coin, e.g. 0.5 (got '${maxIn}')`
    )
  }
  return Object.freeze({
    dex: Object.freeze(
      Object.fromEntries(NODE_INTEL_CHAINS.map((c) => [c, dex(env, c)])) as Record<NodeIntelChain, NodeIntelDex>
    ),
    highTaxPct,
    honeypotTaxPct,
    probeMaxIn: parseEther(maxIn),
    cacheMs: envNumber(env, 'NODEINTEL_CACHE_MS', 15_000, 0, 3_600_000),
    newPairsPollMs: envNumber(env, 'NODEINTEL_NEW_PAIRS_POLL_MS', 3_000, 0, 600_000),
    newPairsKeep: envNumber(env, 'NODEINTEL_NEW_PAIRS_KEEP', 1_000, 10, 100_000),
    watch: watchConfig(env)
  })
}
