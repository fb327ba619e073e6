/**
 * @module
 * The service's configuration, read once from the environment at start, validated with messages that name
 * the variable and the accepted values, and passed down as a readonly object. Nothing else reads
 * `process.env`. Each capability reads its own variables (engine/webhooks/config.ts,
 * engine/alerts/config.ts, engine/chain/rpc-config.ts, engine/nodeintel/config.ts,
 * ingest/sources/chain/chain-settings.ts, the venue entries of ingest/sources/venues.ts) with the readers
 * of engine/config/env.ts; this module assembles them and reads the service's own.
 */
import fs from 'node:fs'
import path from 'node:path'
import { VENUES, type VenueConfigs, type VenueName } from '../ingest/sources/venues.js'
import type { VenueEnv } from '../ingest/sources/venue-settings.js'
import { ConfigError } from '../engine/config/config-error.js'
import { checkUrl, envDir, envInt, envOneOf, envValue, type Env } from '../engine/config/env.js'
import { alertAllowedIps, alertSources } from '../engine/alerts/config.js'
import { webhookConfig, type WebhookConfig } from '../engine/webhooks/config.js'
import { chainsConfig, type ChainsConfig } from '../engine/chain/rpc-config.js'
import { nodeIntelConfig, type NodeIntelConfig } from '../engine/nodeintel/config.js'
import { chainSourcesConfig, chainSourcesFor, type ChainSourcesConfig } from '../ingest/sources/chain/chain-settings.js'
import { isChainSourceName, type ChainSourceName } from '../ingest/sources/chain/chain-source-names.js'

export { ConfigError, type WebhookConfig }

/** `replay:<file or dir>` replays a recording (RECORD_DIR) through the venue adapters. */
/** Chain sources are `evm:<chain>` and `solana`. */
export type SourceName = 'sim' | VenueName | `replay:${string}` | ChainSourceName
/** Plain names SOURCES accepts: the demo market, every venue of the registry, `live` and `none` (`replay:<path>` on top). */
export const KNOWN_SOURCES: readonly string[] = ['sim', ...VENUES.map((v) => v.name), 'live', 'none']
/** What `SOURCES=live` means: the registry's venues marked live (ingest/sources/venues.ts). */
export const LIVE_VENUES: readonly VenueName[] = VENUES.filter((v) => v.live).map((v) => v.name)
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export interface Config {
  /** @default 8080 (0 picks a free port) */
  readonly port: number
  /** @default '127.0.0.1' */
  readonly host: string
  /** chDB data directory (absolute); also holds the generated admin token. @default './data' */
  readonly dataDir: string
  /** ClickHouse server URL; when set the server adapter replaces chDB. */
  readonly clickhouseUrl: string | undefined
  /** cluster name: Replicated tables + Distributed, DDL ON CLUSTER */
  readonly clickhouseCluster: string | undefined
  /** @default ['sim'] */
  readonly sources: readonly SourceName[]
  /**
   * Each venue's settings, `config.venues.<name>`, read from its registry entry (ingest/sources/venues.ts):
   * `wsUrl` (`<PREFIX>_WS_URL`), `restUrl` (`<PREFIX>_REST_URL`), `symbols` (`<PREFIX>_SYMBOLS`, empty: every
   * market) and the venue's own (Deribit: `currencies`, DERIBIT_CURRENCIES). Defaults are in the entries.
   */
  readonly venues: VenueConfigs
  /** directory for raw venue recordings (gzipped NDJSON, hourly files); unset: no recording */
  readonly recordDir: string | undefined
  /** replay pace: 1 = as recorded, 10 = ten times faster, 0 = as fast as possible (`max`). @default 1 */
  readonly replaySpeed: number
  /** @default 42 */
  readonly simSeed: number
  /** history the demo market writes on first start, days. @default 30 */
  readonly simBackfillDays: number
  readonly adminToken: string | undefined
  /** @default 'info' */
  readonly logLevel: LogLevel
  /** rows that trigger a batch flush. @default 50_000 */
  readonly batchRows: number
  /** rows that seal a batch of bulk loads (the demo backfill, replays at full speed). @default 250_000 */
  readonly bulkBatchRows: number
  /** max age of a batch before it is flushed, ms. @default 1_000 */
  readonly flushMs: number
  /** rows a table's queue holds before producers wait (backpressure). @default 500_000 */
  readonly queueRows: number
  /** chDB connections on the one data dir = max chDB queries in flight. @default 4 */
  readonly chdbPoolSize: number
  /** bulk exports streaming at once; more answer 503 (each holds a store connection until its client has read all) */
  readonly exportMaxConcurrent: number
  /** read candle partitions that are one merged part without FINAL in exports (chDB; docs/export-formats.md) */
  readonly exportPinMerged: boolean
  /**
   * Bytes of request bodies held in memory at once across connections (BODY_MEMORY_MB); past it a body is
   * refused 503 before it is read. Admin NDJSON bodies are spooled to disk and not counted here.
   * @default 64 MiB
   */
  readonly bodyMemoryBytes: number
  /** public endpoints without a key: requests per minute per client IP (token bucket). @default 60 */
  readonly publicRatePerMinute: number
  /** reverse proxies in front whose X-Forwarded-For is trusted; 0 ignores the header. @default 0 */
  readonly trustedProxyHops: number
  /** `ALERT_SOURCES`: inbound alert sources served at POST /v1/{name}/webhook; `tradingview` always first (docs/alerts.md) */
  readonly alertSources: readonly string[]
  /** `ALERT_ALLOWED_IPS`: addresses and CIDRs alerts are accepted from, normalized; empty: any. @default [] */
  readonly alertAllowedIps: readonly string[]
  /** outbound webhooks (WEBHOOK_* variables, docs/webhooks.md) */
  readonly webhooks: WebhookConfig
  /** EVM nodes per chain: `<CHAIN>_RPC_URL`, `_WS_URL`, `_RPC_RATE`, `_RPC_TIMEOUT_MS` (engine/chain/rpc-config.ts) */
  readonly chains: ChainsConfig
  /** node intelligence: DEX per chain, verdict thresholds, cache, new pairs (engine/nodeintel/config.ts) */
  readonly nodeIntel: NodeIntelConfig
  /** `SIGNUP`: `invite` (after the first account, sign-up needs an owner's invite) or `open`. @default 'invite' */
  readonly signup: 'invite' | 'open'
  /** WATCHLIST_DIR, WHALE_MIN_USD, per chain `<ENV>_CONFIRMATIONS`, `_START_BLOCK`, `_BACKFILL_HOURS`, ... */
  readonly chainSources: ChainSourcesConfig
}

function sources(env: Env): readonly SourceName[] {
  const raw = env['SOURCES'] ?? 'sim'
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const bad = list.find(
    (s) => !KNOWN_SOURCES.includes(s) && !s.startsWith('replay:') && s !== 'chains' && !isChainSourceName(s)
  )
  if (bad !== undefined || list.length === 0) {
    throw new ConfigError(
      `SOURCES must be a comma list of ${KNOWN_SOURCES.join(', ')} or replay:<file or dir> (got '${raw}')`
    )
  }
  if (list.includes('none') && list.length > 1) throw new ConfigError(`SOURCES=none cannot be combined (got '${raw}')`)
  const out: SourceName[] = []
  for (const s of list) {
    if (s === 'none') continue
    // `chains` expands to every chain with a node URL; a named chain needs its URL
    if (s === 'chains' || isChainSourceName(s)) {
      for (const name of chainSourcesFor(s, env)) if (!out.includes(name)) out.push(name)
      continue
    }
    if (s.startsWith('replay:')) {
      const file = s.slice('replay:'.length)
      if (!file || !fs.existsSync(file)) throw new ConfigError(`SOURCES=${s}: no such file or directory '${file}'`)
      out.push(`replay:${path.resolve(file)}`)
    } else {
      for (const name of s === 'live' ? LIVE_VENUES : [s as SourceName]) if (!out.includes(name)) out.push(name)
    }
  }
  return out
}

function baseUrl(env: Env, name: string, def: string, protocols: readonly string[]): string {
  const raw = envValue(env, name)
  return raw === undefined ? def : checkUrl(name, raw, protocols, def).replace(/\/+$/, '')
}

/** A venue's variables: `<prefix>_<suffix>`, errors naming the variable. */
function venueEnv(env: Env, prefix: string): VenueEnv {
  return {
    get: (suffix) => envValue(env, `${prefix}_${suffix}`),
    fail: (suffix, message) => {
      throw new ConfigError(`${prefix}_${suffix} ${message}`)
    }
  }
}

/** `config.venues`: every registry entry's URLs (default from the entry) and settings. */
function venues(env: Env): VenueConfigs {
  const out: Record<string, unknown> = {}
  for (const v of VENUES) {
    out[v.name] = Object.freeze({
      wsUrl: baseUrl(env, `${v.envPrefix}_WS_URL`, v.wsUrl, ['ws:', 'wss:']),
      restUrl: baseUrl(env, `${v.envPrefix}_REST_URL`, v.restUrl, ['http:', 'https:']),
      ...v.settings(venueEnv(env, v.envPrefix))
    })
  }
  return Object.freeze(out) as VenueConfigs
}

function replaySpeed(env: Env): number {
  const raw = envValue(env, 'REPLAY_SPEED')
  if (raw === undefined) return 1
  if (raw === 'max') return 0
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0 || n > 1_000_000) {
    throw new ConfigError(`REPLAY_SPEED must be max or a number from 0 (as fast as possible) to 1000000 (got '${raw}')`)
  }
  return n
}

function clickhouseUrl(env: Env): string | undefined {
  const raw = envValue(env, 'CLICKHOUSE_URL')
  if (raw === undefined) return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`CLICKHOUSE_URL must be an http(s) URL like http://user:pass@host:8123/db (got '${raw}')`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`CLICKHOUSE_URL must use http or https (got '${url.protocol}')`)
  }
  return raw
}

function identifier(env: Env, name: string): string | undefined {
  const raw = envValue(env, name)
  if (raw === undefined) return undefined
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)) throw new ConfigError(`${name} must be a plain identifier (got '${raw}')`)
  return raw
}

function adminToken(env: Env): string | undefined {
  const raw = env['ADMIN_TOKEN']
  if (raw === undefined || raw === '') return undefined
  if (raw.length < 16 || /\s/.test(raw)) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters without spaces')
  }
  return raw
}

/**
 * `EXPORT_MAX_CONCURRENT`. On chDB every streaming export holds one of the `CHDB_POOL_SIZE` connections until
 * its client has read everything, so the cap stays below the pool (ingest and other reads keep at least
 * one): default min(2, pool - 1), at least 1 (with a pool of 1 an export holds the only connection).
 */
function exportMaxConcurrent(env: Env, pool: number): number {
  if (env['CLICKHOUSE_URL']) return envInt(env, 'EXPORT_MAX_CONCURRENT', 2, 1, 32)
  const most = Math.max(1, pool - 1)
  const cap = envInt(env, 'EXPORT_MAX_CONCURRENT', Math.min(2, most), 1, 32)
  if (cap > most) {
    throw new ConfigError(
      `EXPORT_MAX_CONCURRENT (${cap}) must be below CHDB_POOL_SIZE (${pool}): each streaming export holds a chDB connection until its client has read everything, and ingest and other reads need one left`
    )
  }
  return cap
}

/** Reads and validates the configuration. Throws ConfigError naming the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const host = envValue(env, 'HOST') ?? '127.0.0.1'
  if (env['CLICKHOUSE_CLUSTER'] && !env['CLICKHOUSE_URL']) {
    throw new ConfigError('CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a cluster is a ClickHouse server deployment)')
  }
  const chdbPoolSize = envInt(env, 'CHDB_POOL_SIZE', 4, 1, 32)
  return Object.freeze({
    port: envInt(env, 'PORT', 8080, 0, 65_535),
    host,
    dataDir: envDir(env, 'DATA_DIR') ?? path.resolve('./data'),
    clickhouseUrl: clickhouseUrl(env),
    clickhouseCluster: identifier(env, 'CLICKHOUSE_CLUSTER'),
    sources: sources(env),
    venues: venues(env),
    recordDir: envDir(env, 'RECORD_DIR'),
    replaySpeed: replaySpeed(env),
    simSeed: envInt(env, 'SIM_SEED', 42, 0, 2 ** 31 - 1),
    simBackfillDays: envInt(env, 'SIM_BACKFILL_DAYS', 30, 0, 365),
    adminToken: adminToken(env),
    logLevel: envOneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    batchRows: envInt(env, 'INGEST_BATCH_ROWS', 50_000, 1, 1_000_000),
    bulkBatchRows: envInt(env, 'INGEST_BULK_BATCH_ROWS', 250_000, 1, 1_000_000),
    flushMs: envInt(env, 'INGEST_FLUSH_MS', 1_000, 10, 60_000),
    queueRows: envInt(env, 'INGEST_QUEUE_ROWS', 500_000, 1_000, 10_000_000),
    chdbPoolSize,
    exportMaxConcurrent: exportMaxConcurrent(env, chdbPoolSize),
    exportPinMerged: envOneOf(env, 'EXPORT_PIN_MERGED', '1', ['0', '1']) === '1',
    bodyMemoryBytes: envInt(env, 'BODY_MEMORY_MB', 64, 1, 65_536) * 1024 * 1024,
    publicRatePerMinute: envInt(env, 'PUBLIC_RATE_PER_MIN', 60, 1, 1_000_000_000),
    trustedProxyHops: envInt(env, 'TRUSTED_PROXY_HOPS', 0, 0, 10),
    alertSources: alertSources(env),
    alertAllowedIps: alertAllowedIps(env),
    webhooks: webhookConfig(env),
    chains: chainsConfig(env),
    nodeIntel: nodeIntelConfig(env),
    chainSources: chainSourcesConfig(env),
    signup: envOneOf(env, 'SIGNUP', 'invite', ['invite', 'open'] as const)
  })
}
