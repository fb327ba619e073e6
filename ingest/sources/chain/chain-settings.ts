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
import { ConfigError } from '../../../engine/config/config-error.js'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  EnvDir,
  EnvInt,
  EnvNumber,
  EnvText,
  EnvUrl,
  envValue,
  readEnv,
  readVariable,
  type Env
} from '../../../engine/config/env.js'
import { isHexAddress } from '../../../engine/chain/address.js'
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

/** One EVM chain's source variables, `<ENV>_CONFIRMATIONS`, ... with the catalog's defaults. */
function evmVariables(chain: EvmChainName): Record<string, TSchema> {
  const spec = EVM_CHAINS[chain]
  const p = spec.envName
  return {
    [`${p}_CONFIRMATIONS`]: EnvInt({
      description: 'blocks deep a block must be before its events are final',
      default: spec.confirmations,
      minimum: 1,
      maximum: 1_000,
      family: '<ENV>_CONFIRMATIONS'
    }),
    [`${p}_START_BLOCK`]: Type.Optional(
      EnvInt({
        description: 'first block read when no checkpoint is stored',
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        family: '<ENV>_START_BLOCK'
      })
    ),
    [`${p}_BACKFILL_HOURS`]: EnvNumber({
      description: 'without checkpoint or start block, how far behind the head to begin, hours',
      default: 1,
      minimum: 0,
      maximum: 24 * 365,
      family: '<ENV>_BACKFILL_HOURS'
    }),
    [`${p}_LOGS_MAX_RANGE`]: EnvInt({
      description: 'largest eth_getLogs span, blocks',
      default: 2_000,
      minimum: 1,
      maximum: 1_000_000,
      family: '<ENV>_LOGS_MAX_RANGE'
    }),
    [`${p}_POLL_MS`]: EnvInt({
      description: 'head polling interval, ms',
      default: Math.max(250, spec.blockTimeMs),
      minimum: 10,
      maximum: 600_000,
      family: '<ENV>_POLL_MS'
    }),
    [`${p}_WRAPPED_NATIVE`]: Type.Optional(
      EnvText({
        description: "the wrapped native token, counted as the coin itself (default: the catalog's)",
        accepted: 'a 0x-prefixed 20-byte address',
        pattern: '^0x[0-9a-fA-F]{40}$',
        family: '<ENV>_WRAPPED_NATIVE'
      })
    )
  }
}

/** The chain sources' variables (node URLs are engine/chain/rpc-config.ts's). */
export const CHAIN_SOURCES_ENV = Type.Object({
  ...(Object.assign({}, ...EVM_CHAIN_NAMES.map(evmVariables)) as Record<string, TSchema>),
  WHALE_MIN_USD: EnvNumber({
    description: 'USD size from which a wallet not on the watch list is reported',
    default: 100_000,
    minimum: 0,
    maximum: 1e12
  }),
  WATCHLIST_DIR: Type.Optional(EnvDir({ description: 'tracked wallets and tokens; unset: the shipped watchlists/' })),
  CHAIN_BATCH_BLOCKS: EnvInt({
    description: 'confirmed blocks read per batch',
    default: 500,
    minimum: 1,
    maximum: 100_000
  }),
  CHAIN_WRITE_EVENTS: EnvInt({
    description: 'backfill: events of consecutive batches written together',
    default: DEFAULT_WRITE_EVENTS,
    minimum: 1,
    maximum: 1_000_000
  }),
  CHAIN_WRITE_HOLD_MS: EnvInt({
    description: 'backfill: longest a write group is held, ms (0 writes every batch)',
    default: 5_000,
    minimum: 0,
    maximum: 600_000
  }),
  CHAIN_RECORD_DIR: Type.Optional(EnvDir({ description: "record the chain sources' RPC answers" })),
  CHAIN_REPLAY_DIR: Type.Optional(EnvDir({ description: 'answer from recordings instead of the nodes' })),
  SOLANA_RPC_URL: Type.Optional(EnvUrl('http', 'http://127.0.0.1:8899', { description: 'Solana JSON-RPC node' })),
  SOLANA_POLL_MS: EnvInt({ description: 'Solana polling interval, ms', default: 2_000, minimum: 10, maximum: 600_000 }),
  SOLANA_SIGNATURES_LIMIT: EnvInt({
    description: 'signatures read per wallet and poll',
    default: 100,
    minimum: 1,
    maximum: 1_000
  })
})

type ChainSourcesEnv = ReturnType<typeof readEnv<typeof CHAIN_SOURCES_ENV.properties>>

/** `<ENV>_WRAPPED_NATIVE` of `chain` (its own prefix first, then its aliases), lower-case; else the catalog's */
function wrappedNativeOf(env: Env, chain: EvmChainName): string {
  const name = variableFor(env, chain, 'WRAPPED_NATIVE')
  const raw = envValue(env, name)
  if (raw === undefined) return EVM_CHAINS[chain].wrappedNative.toLowerCase()
  if (!isHexAddress(raw)) {
    throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address (got '${raw}')`)
  }
  return raw.toLowerCase()
}

function evmSettings(env: Env, chain: EvmChainName, e: ChainSourcesEnv): EvmSourceSettings {
  const spec = EVM_CHAINS[chain]
  const p = spec.envName
  const properties: Readonly<Record<string, TSchema>> = CHAIN_SOURCES_ENV.properties
  const own = (suffix: string): number | undefined =>
    readVariable(env, `${p}_${suffix}`, properties[`${p}_${suffix}`]!) as number | undefined
  const hours = own('BACKFILL_HOURS')!
  return Object.freeze({
    confirmations: own('CONFIRMATIONS')!,
    startBlock: own('START_BLOCK'),
    backfillBlocks: Math.ceil((hours * 3_600_000) / spec.blockTimeMs),
    maxSpan: own('LOGS_MAX_RANGE')!,
    pollMs: own('POLL_MS')!,
    batchBlocks: e.CHAIN_BATCH_BLOCKS,
    writeEvents: e.CHAIN_WRITE_EVENTS,
    writeHoldMs: e.CHAIN_WRITE_HOLD_MS,
    minUsd: e.WHALE_MIN_USD,
    wrappedNative: wrappedNativeOf(env, chain),
    wsUrl: wsUrlFor(env, chain),
    recordDir: resolved(e.CHAIN_RECORD_DIR),
    replayDir: resolved(e.CHAIN_REPLAY_DIR)
  })
}

const resolved = (dir: string | undefined): string | undefined => (dir === undefined ? undefined : path.resolve(dir))

function solanaUrl(env: Env): string | undefined {
  return readVariable(env, 'SOLANA_RPC_URL', CHAIN_SOURCES_ENV.properties.SOLANA_RPC_URL)
}

/** Reads the chain sources' settings. Throws ConfigError naming the variable at fault. */
export function chainSourcesConfig(env: Env): ChainSourcesConfig {
  const e = readEnv(CHAIN_SOURCES_ENV, env)
  const evm = Object.fromEntries(EVM_CHAIN_NAMES.map((c) => [c, evmSettings(env, c, e)])) as Record<
    EvmChainName,
    EvmSourceSettings
  >
  return Object.freeze({
    watchlistDir: path.resolve(e.WATCHLIST_DIR ?? path.join(projectRoot(), 'watchlists')),
    minUsd: e.WHALE_MIN_USD,
    evm: Object.freeze(evm),
    solana: Object.freeze({
      rpcUrl: e.SOLANA_RPC_URL,
      recordDir: resolved(e.CHAIN_RECORD_DIR),
      replayDir: resolved(e.CHAIN_REPLAY_DIR),
      pollMs: e.SOLANA_POLL_MS,
      signaturesLimit: e.SOLANA_SIGNATURES_LIMIT,
      minUsd: e.WHALE_MIN_USD
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
