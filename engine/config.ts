/**
 * @module
 * Configuration, read once from the environment at start, validated with messages that name the variable
 * and the accepted values, and passed down as a readonly object. Nothing else reads `process.env`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { VENUES, type VenueConfigs, type VenueName } from '../ingest/sources/venues.js'
import type { VenueEnv } from '../ingest/sources/venue-settings.js'
import { parseAllowList } from './alerts/sender-allow-list.js'
import { parseCidrList } from './webhooks/address-policy.js'
import { parseWebhookKey } from './webhooks/secret-box.js'
// --- chain nodes (engine/chain) ---
import { chainsConfig, type ChainsConfig } from './chain/rpc-config.js'
import { nodeIntelConfig, type NodeIntelConfig } from './nodeintel/config.js' // node intelligence
// --- end chain nodes ---
// --- chain sources (issue 15, docs/sources.md "Chain sources") ---
import { chainSourcesConfig, chainSourcesFor, type ChainSourcesConfig } from '../ingest/sources/chain/chain-settings.js'
import { isChainSourceName, type ChainSourceName } from '../ingest/sources/chain/chain-source-names.js'
// --- end chain sources ---

/** `replay:<file or dir>` replays a recording (RECORD_DIR) through the venue adapters. */
export type SourceName = 'sim' | VenueName | `replay:${string}` | ChainSourceName // chain sources: evm:<chain>, solana
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
  // --- chain nodes (engine/chain) ---
  /** EVM nodes per chain: `<CHAIN>_RPC_URL`, `_WS_URL`, `_RPC_RATE`, `_RPC_TIMEOUT_MS` (engine/chain/rpc-config.ts) */
  readonly chains: ChainsConfig
  /** node intelligence: DEX per chain, verdict thresholds, cache, new pairs (engine/nodeintel/config.ts) */
  readonly nodeIntel: NodeIntelConfig
  // --- end chain nodes ---
  // --- accounts (docs/accounts.md) ---
  /** `SIGNUP`: `invite` (after the first account, sign-up needs an owner's invite) or `open`. @default 'invite' */
  readonly signup: 'invite' | 'open'
  // --- end accounts ---
  // --- chain sources (docs/sources.md "Chain sources") ---
  /** WATCHLIST_DIR, WHALE_MIN_USD, per chain `<ENV>_CONFIRMATIONS`, `_START_BLOCK`, `_BACKFILL_HOURS`, ... */
  readonly chainSources: ChainSourcesConfig
  // --- end chain sources ---
}

/** Outbound webhook settings (docs/webhooks.md, "Configuration"). */
export interface WebhookConfig {
  /** `WEBHOOK_KEY`: encrypts signing keys at rest; unset: generated into DATA_DIR/webhook.key (0600) */
  readonly key: Buffer | undefined
  /** `WEBHOOK_ALLOW_PRIVATE`: CIDRs deliveries may reach despite the SSRF guard (tests, private deployments). @default [] */
  readonly allowPrivate: readonly string[]
  /** `WEBHOOK_TIMEOUT_MS`: an attempt without an answer in this time failed (spec: 10 s). @default 10_000 */
  readonly timeoutMs: number
  /** `WEBHOOK_DISABLE_AFTER_S`: a webhook whose deliveries all failed this long is disabled. @default 86_400 */
  readonly disableAfterS: number
  /** `WEBHOOK_CONCURRENCY`: attempts in flight at once, all receivers. @default 256 */
  readonly concurrency: number
  /** `WEBHOOK_RECEIVER_CONCURRENCY`: attempts (and connections) in flight per receiver origin. @default 16 */
  readonly receiverConcurrency: number
  /** `WEBHOOK_MAX_PENDING`: deliveries waiting at once; more are stored as failed (queue_full). @default 250_000 */
  readonly maxPending: number
  /** `WEBHOOK_MAX_PENDING_PER_WEBHOOK`: the same bound per webhook. @default 100_000 */
  readonly maxPendingPerWebhook: number
  /** `WEBHOOK_RETRY_AFTER_MAX_S`: longest wait a 429's Retry-After can impose before a retry. @default 60 */
  readonly retryAfterMaxS: number
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

type Env = Readonly<Record<string, string | undefined>>

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  const n = Number(raw)
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got '${raw}')`)
  }
  return n
}

function oneOf<T extends string>(env: Env, name: string, def: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got '${raw}')`)
  }
  return raw as T
}

function sources(env: Env): readonly SourceName[] {
  const raw = env['SOURCES'] ?? 'sim'
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const bad = list.find(
    (s) => !KNOWN_SOURCES.includes(s) && !s.startsWith('replay:') && s !== 'chains' && !isChainSourceName(s) // chain sources
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
    // --- chain sources: `chains` expands to every chain with a node URL; a named chain needs its URL ---
    if (s === 'chains' || isChainSourceName(s)) {
      for (const name of chainSourcesFor(s, env)) if (!out.includes(name)) out.push(name)
      continue
    }
    // --- end chain sources ---
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
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be a URL like ${def} (got '${raw}')`)
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')} (got '${raw}')`)
  }
  return raw.replace(/\/+$/, '')
}

/** A venue's variables: `<prefix>_<suffix>`, errors naming the variable. */
function venueEnv(env: Env, prefix: string): VenueEnv {
  return {
    get: (suffix) => {
      const raw = env[`${prefix}_${suffix}`]
      return raw === undefined || raw.trim() === '' ? undefined : raw
    },
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
  const raw = (env['REPLAY_SPEED'] ?? '').trim()
  if (raw === '') return 1
  if (raw === 'max') return 0
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0 || n > 1_000_000) {
    throw new ConfigError(`REPLAY_SPEED must be max or a number from 0 (as fast as possible) to 1000000 (got '${raw}')`)
  }
  return n
}

function clickhouseUrl(env: Env): string | undefined {
  const raw = env['CLICKHOUSE_URL']
  if (raw === undefined || raw === '') return undefined
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
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
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
  if (env['CLICKHOUSE_URL']) return int(env, 'EXPORT_MAX_CONCURRENT', 2, 1, 32)
  const most = Math.max(1, pool - 1)
  const cap = int(env, 'EXPORT_MAX_CONCURRENT', Math.min(2, most), 1, 32)
  if (cap > most) {
    throw new ConfigError(
      `EXPORT_MAX_CONCURRENT (${cap}) must be below CHDB_POOL_SIZE (${pool}): each streaming export holds a chDB connection until its client has read everything, and ingest and other reads need one left`
    )
  }
  return cap
}

function webhookConfig(env: Env): WebhookConfig {
  const rawKey = env['WEBHOOK_KEY']
  let key: Buffer | undefined
  let allowPrivate: string[]
  try {
    key = rawKey === undefined || rawKey.trim() === '' ? undefined : parseWebhookKey(rawKey)
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
  try {
    allowPrivate = parseCidrList(env['WEBHOOK_ALLOW_PRIVATE'] ?? '')
  } catch (err) {
    throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE must be a comma list of CIDRs: ${(err as Error).message}`)
  }
  return Object.freeze({
    key,
    allowPrivate: Object.freeze(allowPrivate),
    timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    disableAfterS: int(env, 'WEBHOOK_DISABLE_AFTER_S', 86_400, 1, 90 * 86_400),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 256, 1, 10_000),
    receiverConcurrency: int(env, 'WEBHOOK_RECEIVER_CONCURRENCY', 16, 1, 1_000),
    maxPending: int(env, 'WEBHOOK_MAX_PENDING', 250_000, 1, 10_000_000),
    maxPendingPerWebhook: int(env, 'WEBHOOK_MAX_PENDING_PER_WEBHOOK', 100_000, 1, 10_000_000),
    retryAfterMaxS: int(env, 'WEBHOOK_RETRY_AFTER_MAX_S', 60, 1, 3_600)
  })
}

/** An alert source: the path segment of POST /v1/{name}/webhook. */
const ALERT_SOURCE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/

/** `ALERT_SOURCES`: alert sources besides `tradingview` (always served), e.g. `trendspider,mybot`. */
function alertSources(env: Env): readonly string[] {
  const raw = env['ALERT_SOURCES'] ?? ''
  const out = ['tradingview']
  for (const item of raw.split(',')) {
    const name = item.trim()
    if (name === '') continue
    if (!ALERT_SOURCE_NAME.test(name)) {
      throw new ConfigError(
        `ALERT_SOURCES must be a comma list of names of 1 to 32 lower-case letters, digits, '-' or '_' (got '${name}')`
      )
    }
    if (!out.includes(name)) out.push(name)
  }
  return Object.freeze(out)
}

/** `ALERT_ALLOWED_IPS`: addresses, CIDRs and `tradingview` (its published senders); empty accepts any address. */
function alertAllowedIps(env: Env): readonly string[] {
  try {
    return Object.freeze(parseAllowList(env['ALERT_ALLOWED_IPS'] ?? ''))
  } catch (err) {
    throw new ConfigError(`ALERT_ALLOWED_IPS must be a comma list of addresses and CIDRs: ${(err as Error).message}`)
  }
}

/** Reads and validates the configuration. Throws ConfigError naming the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const host = env['HOST'] || '127.0.0.1'
  if (env['CLICKHOUSE_CLUSTER'] && !env['CLICKHOUSE_URL']) {
    throw new ConfigError('CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a cluster is a ClickHouse server deployment)')
  }
  const chdbPoolSize = int(env, 'CHDB_POOL_SIZE', 4, 1, 32)
  return Object.freeze({
    port: int(env, 'PORT', 8080, 0, 65_535),
    host,
    dataDir: path.resolve(env['DATA_DIR'] || './data'),
    clickhouseUrl: clickhouseUrl(env),
    clickhouseCluster: identifier(env, 'CLICKHOUSE_CLUSTER'),
    sources: sources(env),
    venues: venues(env),
    recordDir: env['RECORD_DIR'] ? path.resolve(env['RECORD_DIR']) : undefined,
    replaySpeed: replaySpeed(env),
    simSeed: int(env, 'SIM_SEED', 42, 0, 2 ** 31 - 1),
    simBackfillDays: int(env, 'SIM_BACKFILL_DAYS', 30, 0, 365),
    adminToken: adminToken(env),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    batchRows: int(env, 'INGEST_BATCH_ROWS', 50_000, 1, 1_000_000),
    bulkBatchRows: int(env, 'INGEST_BULK_BATCH_ROWS', 250_000, 1, 1_000_000),
    flushMs: int(env, 'INGEST_FLUSH_MS', 1_000, 10, 60_000),
    queueRows: int(env, 'INGEST_QUEUE_ROWS', 500_000, 1_000, 10_000_000),
    chdbPoolSize,
    exportMaxConcurrent: exportMaxConcurrent(env, chdbPoolSize),
    exportPinMerged: oneOf(env, 'EXPORT_PIN_MERGED', '1', ['0', '1']) === '1',
    bodyMemoryBytes: int(env, 'BODY_MEMORY_MB', 64, 1, 65_536) * 1024 * 1024,
    publicRatePerMinute: int(env, 'PUBLIC_RATE_PER_MIN', 60, 1, 1_000_000_000),
    trustedProxyHops: int(env, 'TRUSTED_PROXY_HOPS', 0, 0, 10),
    alertSources: alertSources(env),
    alertAllowedIps: alertAllowedIps(env),
    webhooks: webhookConfig(env),
    chains: chainsConfig(env), // chain nodes (engine/chain)
    nodeIntel: nodeIntelConfig(env), // node intelligence (docs/node-intel.md)
    chainSources: chainSourcesConfig(env), // chain sources (docs/sources.md)
    signup: oneOf(env, 'SIGNUP', 'invite', ['invite', 'open'] as const) // accounts (docs/accounts.md)
  })
}
