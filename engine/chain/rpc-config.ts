/**
 * @module
 * Chain node configuration from the environment, per chain of engine/chain/chains.ts:
 *
 * - `<ENV>_RPC_URL`: comma list of http(s) JSON-RPC URLs, in order of preference (the first healthy node
 *   answers; engine/chain/chain-client.ts).
 * - `<ENV>_WS_URL`: one ws(s) URL for subscriptions (optional).
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
import { checkUrl, envInt, envValue, type Env } from '../config/env.js'
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

/** The variable that holds `<suffix>` for `chain` (its own name first, then aliases), or the own name if none is set. */
export function variableFor(env: Env, chain: EvmChainName, suffix: string): string {
  const names = envPrefixesOf(chain).map((p) => `${p}_${suffix}`)
  return names.find((n) => envValue(env, n) !== undefined) ?? names[0]!
}

/** `<ENV>_RPC_URL` as a list (empty when unset). Throws ConfigError naming the variable. */
export function rpcUrlsFor(env: Env, chain: EvmChainName): string[] {
  const name = variableFor(env, chain, 'RPC_URL')
  const raw = envValue(env, name)
  if (raw === undefined) return []
  const urls = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return urls.map((u) => checkUrl(name, u, ['http:', 'https:'], 'http://127.0.0.1:8545'))
}

/** `<ENV>_WS_URL`, or undefined. Throws ConfigError naming the variable. */
export function wsUrlFor(env: Env, chain: EvmChainName): string | undefined {
  const name = variableFor(env, chain, 'WS_URL')
  const raw = envValue(env, name)
  return raw === undefined ? undefined : checkUrl(name, raw, ['ws:', 'wss:'], 'ws://127.0.0.1:8546')
}

/** One chain's settings, or undefined when it has no `<ENV>_RPC_URL`. */
export function chainRpcConfig(env: Env, chain: EvmChainName): ChainRpcConfig | undefined {
  const urls = rpcUrlsFor(env, chain)
  const wsUrl = wsUrlFor(env, chain)
  const prefix = EVM_CHAINS[chain].envName
  const ratePerSec = envInt(env, `${prefix}_RPC_RATE`, DEFAULT_RPC_RATE, 1, 100_000)
  const timeoutMs = envInt(env, `${prefix}_RPC_TIMEOUT_MS`, DEFAULT_RPC_TIMEOUT_MS, 50, 120_000)
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
