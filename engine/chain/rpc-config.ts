/**
 * @module
 * Chain node configuration from the environment, per chain of engine/chain/chains.ts:
 *
 * - `<ENV>_RPC_URL`: comma list of http(s) JSON-RPC URLs, in order of preference (the first healthy node
 *   answers; engine/chain/chain-client.ts).
 * - `<ENV>_WS_URL`: the chain's node over WebSocket (optional): the whale sources' new-heads subscription, and
 *   node intelligence's wallet simulations and head reads in place of the first node's http URL.
 * - `<ENV>_RPC_RATE`: requests per second to that chain's nodes, all callers together (token bucket whose
 *   burst equals the rate). @default 50
 * - `<ENV>_RPC_TIMEOUT_MS`: one node's time to answer one request before the next node is tried. @default 5000
 *
 * A chain's `envAliases` (catalog/chains.ts) are read too: Avalanche's `AVAX_RPC_URL` / `AVAX_WS_URL` (the
 * names node intelligence documents) are aliases of `AVALANCHE_RPC_URL` / `AVALANCHE_WS_URL`. When both are
 * set, `AVALANCHE_*` wins: it is the chain's own name, and the whale sources and node intelligence then share
 * that node.
 *
 * A malformed value throws ConfigError naming the variable (the process exits 2 with that line).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { EnvInt, EnvUrl, EnvUrlList, commaList, envValue, readVariable, type Env } from '../config/env.js'
import { EVM_CHAIN_NAMES, EVM_CHAINS, envPrefixesOf, type EvmChainName } from './chains.js'

/** Default `<ENV>_RPC_RATE`, requests/s: below the free tiers of public providers, far below a own node. */
export const DEFAULT_RPC_RATE = 50
/** Default `<ENV>_RPC_TIMEOUT_MS`: geth's own eth_call limit (`--rpc.evmtimeout`) is 5 s. */
export const DEFAULT_RPC_TIMEOUT_MS = 5_000

export interface ChainRpcConfig {
  readonly chain: EvmChainName
  /** http(s) URLs in order of preference (at least one) */
  readonly urls: readonly string[]
  /** the variable the URLs came from (for messages: "set BSC_RPC_URL") */
  readonly urlVariable: string
  readonly wsUrl: string | undefined
  /** requests per second (and burst) of the chain's token bucket */
  readonly ratePerSec: number
  /** per-node request timeout, ms */
  readonly timeoutMs: number
}

export type ChainsConfig = Readonly<Partial<Record<EvmChainName, ChainRpcConfig>>>

/** The variables of `chain`'s nodes: `<ENV>_RPC_URL` and `<ENV>_WS_URL` under each of its prefixes, rate and timeout. */
function chainRpcVariables(chain: EvmChainName): Record<string, TSchema> {
  const out: Record<string, TSchema> = {}
  for (const p of envPrefixesOf(chain)) {
    out[`${p}_RPC_URL`] = Type.Optional(
      EnvUrlList('http', 'http://127.0.0.1:8545', {
        description: `${chain} JSON-RPC nodes, in order of preference`,
        family: '<ENV>_RPC_URL'
      })
    )
    out[`${p}_WS_URL`] = Type.Optional(
      EnvUrl('ws', 'ws://127.0.0.1:8546', {
        description: `${chain} node over WebSocket: new-heads subscriptions, and the honeypot simulations`,
        family: '<ENV>_WS_URL'
      })
    )
  }
  const p = EVM_CHAINS[chain].envName
  out[`${p}_RPC_RATE`] = EnvInt({
    description: `requests per second to ${chain}'s nodes, all callers together`,
    default: DEFAULT_RPC_RATE,
    minimum: 1,
    maximum: 100_000,
    family: '<ENV>_RPC_RATE'
  })
  out[`${p}_RPC_TIMEOUT_MS`] = EnvInt({
    description: "one node's time to answer one request before the next node is tried, ms",
    default: DEFAULT_RPC_TIMEOUT_MS,
    minimum: 50,
    maximum: 120_000,
    family: '<ENV>_RPC_TIMEOUT_MS'
  })
  return out
}

/** Every chain's node variables. */
export const CHAIN_RPC_ENV = Type.Object(
  Object.assign({}, ...EVM_CHAIN_NAMES.map(chainRpcVariables)) as Record<string, TSchema>
)

/** One of CHAIN_RPC_ENV's variables, read and checked. */
function rpcVariable(env: Env, name: string): unknown {
  return readVariable(env, name, CHAIN_RPC_ENV.properties[name]!)
}

/** The variable that holds `<suffix>` for `chain` (its own name first, then aliases), or the own name if none is set. */
export function variableFor(env: Env, chain: EvmChainName, suffix: string): string {
  const names = envPrefixesOf(chain).map((p) => `${p}_${suffix}`)
  return names.find((n) => envValue(env, n) !== undefined) ?? names[0]!
}

/** `<ENV>_RPC_URL` as a list (empty when unset). Throws ConfigError naming the variable. */
export function rpcUrlsFor(env: Env, chain: EvmChainName): string[] {
  const raw = rpcVariable(env, variableFor(env, chain, 'RPC_URL')) as string | undefined
  return raw === undefined ? [] : commaList(raw)
}

/** `<ENV>_WS_URL`, or undefined. Throws ConfigError naming the variable. */
export function wsUrlFor(env: Env, chain: EvmChainName): string | undefined {
  return rpcVariable(env, variableFor(env, chain, 'WS_URL')) as string | undefined
}

/** One chain's settings, or undefined when it has no `<ENV>_RPC_URL`. */
export function chainRpcConfig(env: Env, chain: EvmChainName): ChainRpcConfig | undefined {
  const urls = rpcUrlsFor(env, chain)
  const wsUrl = wsUrlFor(env, chain)
  const prefix = EVM_CHAINS[chain].envName
  const ratePerSec = rpcVariable(env, `${prefix}_RPC_RATE`) as number
  const timeoutMs = rpcVariable(env, `${prefix}_RPC_TIMEOUT_MS`) as number
  if (urls.length === 0) return undefined
  return Object.freeze({
    chain,
    urls: Object.freeze(urls),
    urlVariable: variableFor(env, chain, 'RPC_URL'),
    wsUrl,
    ratePerSec,
    timeoutMs
  })
}

/** Every chain's settings (chains without a URL are absent). Throws ConfigError naming the variable. */
export function chainsConfig(env: Env): ChainsConfig {
  const out: Partial<Record<EvmChainName, ChainRpcConfig>> = {}
  for (const chain of EVM_CHAIN_NAMES) {
    const c = chainRpcConfig(env, chain)
    if (c) out[chain] = c
  }
  return Object.freeze(out)
}
