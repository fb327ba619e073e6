/**
 * @module
 * Settings of the chain sources (docs/sources.md, "Chain sources"), read once at start from the environment;
 * node URLs come from engine/chain/rpc-config.ts (`<CHAIN>_RPC_URL`, `<CHAIN>_WS_URL`). Per EVM chain of
 * the catalog (catalog/chains.ts), with `<ENV>` its prefix (ETHEREUM, BSC, AVALANCHE, ...):
 *
 * - `<ENV>_CONFIRMATIONS`: blocks deep a block must be before its events are final. @default the chain's
 *   `confirmations` in the catalog (ethereum 12, bsc 15, avalanche 1, ...)
 * - `<ENV>_START_BLOCK`: first block read when no checkpoint is stored. @default unset (backfill hours)
 * - `<ENV>_BACKFILL_HOURS`: without checkpoint or start block, how far behind the head to begin. @default 1
 * - `<ENV>_LOGS_MAX_RANGE`: largest eth_getLogs span, blocks (halved on the node's size errors). @default 2000
 * - `<ENV>_POLL_MS`: head polling interval, the fallback of the WebSocket subscription. @default the block
 *   time, at least 250 ms
 * - `<ENV>_WRAPPED_NATIVE`: the wrapped native token (WETH9-style Deposit / Withdrawal), counted as the coin
 *   itself; read like the node URLs (Avalanche: `AVALANCHE_WRAPPED_NATIVE`, else `AVAX_WRAPPED_NATIVE`, the
 *   variable node intelligence reads). @default the catalog's (WETH, WBNB, WAVAX, ...)
 *
 * Record and replay (rpc-tape.ts): `CHAIN_RECORD_DIR` records every RPC answer of every chain source to
 * `<dir>/<source>.ndjson`; `CHAIN_REPLAY_DIR` answers from those files instead of the nodes.
 *
 * Shared: `WHALE_MIN_USD` (an unwatched wallet is reported from this USD size; @default 100000, the `low`
 * significance threshold), `WATCHLIST_DIR` (@default the shipped `watchlists/`), `CHAIN_BATCH_BLOCKS`
 * (confirmed blocks per batch; @default 500), `CHAIN_WRITE_EVENTS` and `CHAIN_WRITE_HOLD_MS` (backfill
 * batches are written together until they hold this many events or were held this long; @default 10000
 * events, 5000 ms; `CHAIN_WRITE_HOLD_MS=0` writes every batch). Solana: `SOLANA_RPC_URL` (http(s)),
 * `SOLANA_POLL_MS` (@default 2000), `SOLANA_SIGNATURES_LIMIT` (per wallet and poll, 1–1000; @default 100).
 */
import path from 'node:path'
import { isAddress } from 'viem'
import { ConfigError } from '../../../engine/config/config-error.js'
import { envDir, envInt, envNumber, envUrl, envValue, type Env } from '../../../engine/config/env.js'
import { EVM_CHAIN_NAMES, EVM_CHAINS, type EvmChainName } from '../../../engine/chain/chains.js'
import { rpcUrlsFor, variableFor, wsUrlFor } from '../../../engine/chain/rpc-config.js'
import { projectRoot } from '../../../engine/paths.js'
import { CHAIN_SOURCE_NAMES, isChainSourceName, type ChainSourceName } from './chain-source-names.js'

export { CHAIN_SOURCE_NAMES, isChainSourceName, type ChainSourceName }

export interface EvmSourceSettings {
  readonly confirmations: number
  readonly startBlock: number | undefined
  /** blocks behind the head to start from without checkpoint or start block */
  readonly backfillBlocks: number
  readonly maxSpan: number
  readonly pollMs: number
  readonly batchBlocks: number
  /** backfill: events of consecutive batches written together up to this many (evm-whale-source.ts) */
  readonly writeEvents: number
  /** backfill: longest a write group is held, ms */
  readonly writeHoldMs: number
  readonly minUsd: number
  /** the wrapped native token, lower-case 0x hex (`<ENV>_WRAPPED_NATIVE`, else the catalog's) */
  readonly wrappedNative: string
  readonly wsUrl: string | undefined
  /** CHAIN_RECORD_DIR: record every RPC answer (rpc-tape.ts) */
  readonly recordDir: string | undefined
  /** CHAIN_REPLAY_DIR: answer from recordings instead of the node */
  readonly replayDir: string | undefined
}

export interface SolanaSettings {
  readonly rpcUrl: string | undefined
  readonly recordDir: string | undefined
  readonly replayDir: string | undefined
  readonly pollMs: number
  readonly signaturesLimit: number
  readonly minUsd: number
}

export interface ChainSourcesConfig {
  readonly watchlistDir: string
  readonly minUsd: number
  readonly evm: Readonly<Record<EvmChainName, EvmSourceSettings>>
  readonly solana: SolanaSettings
}

/** events of a backfill write group (CHAIN_WRITE_EVENTS; bench/chain/rows.ts reads the same setting) */
const DEFAULT_WRITE_EVENTS = 10_000

/** `<ENV>_WRAPPED_NATIVE` of `chain` (its own prefix first, then its aliases), lower-case; else the catalog's */
function wrappedNativeOf(env: Env, chain: EvmChainName): string {
  const name = variableFor(env, chain, 'WRAPPED_NATIVE')
  const raw = envValue(env, name)
  if (raw === undefined) return EVM_CHAINS[chain].wrappedNative.toLowerCase()
  if (!isAddress(raw, { strict: false })) {
    throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address (got '${raw}')`)
  }
  return raw.toLowerCase()
}

function evmSettings(
  env: Env,
  chain: EvmChainName,
  minUsd: number,
  batchBlocks: number,
  writes: { readonly writeEvents: number; readonly writeHoldMs: number }
): EvmSourceSettings {
  const spec = EVM_CHAINS[chain]
  const p = spec.envName
  const start = envValue(env, `${p}_START_BLOCK`)
  const hours = envNumber(env, `${p}_BACKFILL_HOURS`, 1, 0, 24 * 365)
  return Object.freeze({
    confirmations: envInt(env, `${p}_CONFIRMATIONS`, spec.confirmations, 1, 1_000),
    startBlock: start === undefined ? undefined : envInt(env, `${p}_START_BLOCK`, 0, 0, Number.MAX_SAFE_INTEGER),
    backfillBlocks: Math.ceil((hours * 3_600_000) / spec.blockTimeMs),
    maxSpan: envInt(env, `${p}_LOGS_MAX_RANGE`, 2_000, 1, 1_000_000),
    pollMs: envInt(env, `${p}_POLL_MS`, Math.max(250, spec.blockTimeMs), 10, 600_000),
    batchBlocks,
    ...writes,
    minUsd,
    wrappedNative: wrappedNativeOf(env, chain),
    wsUrl: wsUrlFor(env, chain),
    recordDir: envDir(env, 'CHAIN_RECORD_DIR'),
    replayDir: envDir(env, 'CHAIN_REPLAY_DIR')
  })
}

function solanaUrl(env: Env): string | undefined {
  return envUrl(env, 'SOLANA_RPC_URL', ['http:', 'https:'], 'http://127.0.0.1:8899')
}

/** Reads the chain sources' settings. Throws ConfigError naming the variable at fault. */
export function chainSourcesConfig(env: Env): ChainSourcesConfig {
  const minUsd = envNumber(env, 'WHALE_MIN_USD', 100_000, 0, 1e12)
  const batchBlocks = envInt(env, 'CHAIN_BATCH_BLOCKS', 500, 1, 100_000)
  const writes = {
    writeEvents: envInt(env, 'CHAIN_WRITE_EVENTS', DEFAULT_WRITE_EVENTS, 1, 1_000_000),
    writeHoldMs: envInt(env, 'CHAIN_WRITE_HOLD_MS', 5_000, 0, 600_000)
  }
  const evm = Object.fromEntries(
    EVM_CHAIN_NAMES.map((c) => [c, evmSettings(env, c, minUsd, batchBlocks, writes)])
  ) as Record<EvmChainName, EvmSourceSettings>
  return Object.freeze({
    watchlistDir: path.resolve(envValue(env, 'WATCHLIST_DIR') ?? path.join(projectRoot(), 'watchlists')),
    minUsd,
    evm: Object.freeze(evm),
    solana: Object.freeze({
      rpcUrl: solanaUrl(env),
      recordDir: envDir(env, 'CHAIN_RECORD_DIR'),
      replayDir: envDir(env, 'CHAIN_REPLAY_DIR'),
      pollMs: envInt(env, 'SOLANA_POLL_MS', 2_000, 10, 600_000),
      signaturesLimit: envInt(env, 'SOLANA_SIGNATURES_LIMIT', 100, 1, 1_000),
      minUsd
    })
  })
}

/**
 * What one SOURCES entry names among the chain sources: `chains` = every chain with a node URL configured
 * (`<ENV>_RPC_URL`, `SOLANA_RPC_URL`); `evm:<chain>` / `solana` itself, which needs its URL.
 */
export function chainSourcesFor(entry: string, env: Env): ChainSourceName[] {
  const hasUrl = (name: ChainSourceName): boolean =>
    name === 'solana' ? solanaUrl(env) !== undefined : rpcUrlsFor(env, name.slice(4) as EvmChainName).length > 0
  if (entry === 'chains') return CHAIN_SOURCE_NAMES.filter(hasUrl)
  if (!isChainSourceName(entry)) throw new ConfigError(`SOURCES: '${entry}' is not a chain source`)
  if (!hasUrl(entry)) {
    const variable =
      entry === 'solana' ? 'SOLANA_RPC_URL' : `${EVM_CHAINS[entry.slice(4) as EvmChainName].envName}_RPC_URL`
    throw new ConfigError(`SOURCES=${entry} needs ${variable} (the node's JSON-RPC URL)`)
  }
  return [entry]
}
