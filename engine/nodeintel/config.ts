/**
 * @module
 * Node intelligence settings (docs/node-intel.md, "Configuration"), read once at start. Per chain: the V2
 * DEX the probe trades through and the wrapped native it trades with, defaulting to the mainnet contracts of
 * the chain's catalog entry (catalog/chains.ts: PancakeSwap V2 + WBNB on BSC, Trader Joe V1 + WAVAX on
 * Avalanche) and overridable for forks, other DEXes and test nodes. Verdict thresholds, the probe's trade size, the cache time and the new-pairs watcher.
 * The nodes themselves are `BSC_RPC_URL` / `AVAX_RPC_URL` (engine/chain/rpc-config.ts).
 */
import type { Address } from 'viem'
import { getAddress } from '../chain/address.js'
import { ConfigError } from '../config/config-error.js'
import { Type, type TSchema } from '@sinclair/typebox'
import { EnvNumber, EnvText, commaList, envValue, readEnv, readVariable, type Env } from '../config/env.js'
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

/** An address variable's schema; `def` is its default. */
function addressVariable(description: string, family: string, def?: string): TSchema {
  const schema = EnvText({
    description,
    family,
    accepted: 'a 0x-prefixed 20-byte address',
    pattern: '^0x[0-9a-fA-F]{40}$',
    ...(def === undefined ? {} : { default: def })
  })
  return def === undefined ? Type.Optional(schema) : schema
}

/** One node-intelligence chain's variables, `<BSC|AVAX>_DEX_ROUTER`, ... with the catalog's mainnet defaults. */
function dexVariables(chain: NodeIntelChain): Record<string, TSchema> {
  const p = chain.toUpperCase()
  const m = nodeIntelDefaults(chain)
  return {
    [`${p}_DEX_ROUTER`]: addressVariable('V2 router the probe trades through', '<PATH>_DEX_ROUTER', m.router),
    [`${p}_DEX_FACTORY`]: addressVariable('its factory', '<PATH>_DEX_FACTORY', m.factory),
    [`${p}_WRAPPED_NATIVE`]: addressVariable(
      'the wrapped native the probe buys with',
      '<PATH>_WRAPPED_NATIVE',
      EVM_CHAINS[nodeIntelChain(chain)].wrappedNative
    ),
    [`${p}_USD_TOKEN`]: addressVariable('stablecoin that prices liquidity in USD', '<PATH>_USD_TOKEN', m.usdToken),
    [`${p}_LP_LOCKERS`]: Type.Optional(
      EnvText({
        description: 'LP locker contracts whose LP holdings count as locked',
        family: '<PATH>_LP_LOCKERS',
        accepted: 'a comma list of at most 20 0x addresses',
        pattern: '^[\\s,]*0x[0-9a-fA-F]{40}(\\s*,[\\s,]*0x[0-9a-fA-F]{40}){0,19}[\\s,]*$'
      })
    )
  }
}

/** Node intelligence's variables. */
export const NODE_INTEL_ENV = Type.Object({
  ...(Object.assign({}, ...NODE_INTEL_CHAINS.map(dexVariables)) as Record<string, TSchema>),
  NODEINTEL_HIGH_TAX_PCT: EnvNumber({
    description: 'a buy, sell or transfer tax above this, percent, gives high_tax',
    default: 10,
    minimum: 0,
    maximum: 100
  }),
  NODEINTEL_HONEYPOT_TAX_PCT: EnvNumber({
    description: 'a sell tax at or above this, percent, gives honeypot',
    default: 90,
    minimum: 0,
    maximum: 100
  }),
  NODEINTEL_PROBE_MAX_IN: EnvText({
    description: 'the largest buy, in native coins',
    accepted: 'a positive amount of the native coin, e.g. 0.5',
    pattern: '^\\d+(\\.\\d{1,18})?$',
    default: '1'
  }),
  NODEINTEL_CACHE_MS: EnvNumber({
    description: 'how long an answer is reused for the same token, ms',
    default: 15_000,
    minimum: 0,
    maximum: 3_600_000
  }),
  NODEINTEL_NEW_PAIRS_POLL_MS: EnvNumber({
    description: "how often the factory's PairCreated logs are read, ms (0 turns the watcher off)",
    default: 3_000,
    minimum: 0,
    maximum: 600_000
  }),
  NODEINTEL_NEW_PAIRS_KEEP: EnvNumber({
    description: 'how many new pairs are remembered per chain',
    default: 1_000,
    minimum: 10,
    maximum: 100_000
  })
})

/** An amount of the native coin in wei: `amount` matches `^\d+(\.\d{1,18})?$` (the variable's pattern). */
function weiOf(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.')
  return BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'))
}

/** One of NODE_INTEL_ENV's variables, read and checked. */
function variable(env: Env, name: string): string | undefined {
  const properties: Readonly<Record<string, TSchema>> = NODE_INTEL_ENV.properties
  return readVariable(env, name, properties[name]!) as string | undefined
}

/**
 * An address variable, checksummed: its default is the catalog's, checksummed already
 * (test/unit/catalog.test.ts), so only a value set in the environment is hashed.
 */
function address(env: Env, name: string): Address {
  const v = variable(env, name)!
  return envValue(env, name) === undefined ? (v as Address) : getAddress(v)
}

function dex(env: Env, chain: NodeIntelChain): NodeIntelDex {
  const p = chain.toUpperCase()
  const m = nodeIntelDefaults(chain)
  const custom = envValue(env, `${p}_DEX_ROUTER`) !== undefined
  const lockers = variable(env, `${p}_LP_LOCKERS`)
  return Object.freeze({
    dexName: custom ? 'custom' : m.dexName,
    router: address(env, `${p}_DEX_ROUTER`),
    factory: address(env, `${p}_DEX_FACTORY`),
    wrappedNative: address(env, `${p}_WRAPPED_NATIVE`),
    usdToken: address(env, `${p}_USD_TOKEN`),
    lpLockers: Object.freeze(lockers === undefined ? [] : commaList(lockers).map((a) => getAddress(a)))
  })
}

export function nodeIntelConfig(env: Env): NodeIntelConfig {
  const e = readEnv(NODE_INTEL_ENV, env)
  if (e.NODEINTEL_HONEYPOT_TAX_PCT < e.NODEINTEL_HIGH_TAX_PCT) {
    throw new ConfigError(
      `NODEINTEL_HONEYPOT_TAX_PCT (${e.NODEINTEL_HONEYPOT_TAX_PCT}) must not be below NODEINTEL_HIGH_TAX_PCT (${e.NODEINTEL_HIGH_TAX_PCT})`
    )
  }
  const probeMaxIn = weiOf(e.NODEINTEL_PROBE_MAX_IN)
  if (probeMaxIn === 0n) {
    throw new ConfigError(
      `NODEINTEL_PROBE_MAX_IN must be ${NODE_INTEL_ENV.properties.NODEINTEL_PROBE_MAX_IN.accepted} (got '${e.NODEINTEL_PROBE_MAX_IN}')`
    )
  }
  return Object.freeze({
    dex: Object.freeze(
      Object.fromEntries(NODE_INTEL_CHAINS.map((c) => [c, dex(env, c)])) as Record<NodeIntelChain, NodeIntelDex>
    ),
    highTaxPct: e.NODEINTEL_HIGH_TAX_PCT,
    honeypotTaxPct: e.NODEINTEL_HONEYPOT_TAX_PCT,
    probeMaxIn,
    cacheMs: e.NODEINTEL_CACHE_MS,
    newPairsPollMs: e.NODEINTEL_NEW_PAIRS_POLL_MS,
    newPairsKeep: e.NODEINTEL_NEW_PAIRS_KEEP,
    watch: watchConfig(env)
  })
}
