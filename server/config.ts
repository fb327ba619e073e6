/**
 * @module
 * The service's configuration, read once from the environment at start, validated with messages that name
 * the variable and the accepted values, and passed down as a readonly object. Nothing else reads
 * `process.env`. Each capability declares its variables as a TypeBox schema and reads them with
 * engine/config/env.ts (engine/webhooks/config.ts, engine/alerts/config.ts, engine/chain/rpc-config.ts,
 * engine/nodeintel/config.ts, ingest/sources/chain/chain-settings.ts, the venue modules'
 * `variables`, read in config-venues.ts); this module declares the service's own (`SERVICE_ENV`), joins
 * them all into `ENV_SCHEMA` and assembles the one `Config` (SOURCES is read in config-sources.ts).
 */
import path from 'node:path'
import type { VenueConfigs } from '../ingest/sources/venues.js'
import { ConfigError } from '../engine/config/config-error.js'
import { Type } from '@sinclair/typebox'
import { EnvDir, EnvEnum, EnvInt, EnvText, EnvUrl, readEnv, type Env } from '../engine/config/env.js'
import { ALERT_ENV, alertAllowedIps, alertSources } from '../engine/alerts/config.js'
import { WEBHOOK_ENV, webhookConfig, type WebhookConfig } from '../engine/webhooks/config.js'
import { CHAIN_RPC_ENV, chainsConfig, type ChainsConfig } from '../engine/chain/rpc-config.js'
import { NODE_INTEL_ENV, nodeIntelConfig, type NodeIntelConfig } from '../engine/nodeintel/config.js'
import { WATCH_ENV } from '../engine/nodeintel/watch-config.js'
import {
  CHAIN_SOURCES_ENV,
  chainSourcesConfig,
  type ChainSourcesConfig
} from '../ingest/sources/chain/chain-settings.js'
import { parseSources, SOURCES_ACCEPTED, type SourceName } from './config-sources.js'
import { VENUE_ENV, venueConfigs } from './config-venues.js'

export { ConfigError, type WebhookConfig }
export { KNOWN_SOURCES, LIVE_VENUES, type SourceName } from './config-sources.js'
export { VENUE_ENV } from './config-venues.js'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LogLevel[]

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
  /** perpetual markets of the demo market, the most liquid first; undefined: all of them */
  readonly simMarkets: number | undefined
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
  /** LIVE_PATH_PROBE: the live path's stage ages are measured (engine/live/path-probe.ts) */
  readonly livePathProbe: boolean
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

/** The service's own variables. */
export const SERVICE_ENV = Type.Object({
  PORT: EnvInt({ description: 'HTTP listen port (0 picks a free port)', default: 8080, minimum: 0, maximum: 65_535 }),
  HOST: EnvText({ description: 'HTTP listen address', accepted: 'a host name or address', default: '127.0.0.1' }),
  DATA_DIR: EnvDir({ description: 'chDB data directory; also holds the admin token', default: './data' }),
  CLICKHOUSE_URL: Type.Optional(
    EnvUrl('http', 'http://user:pass@host:8123/db', { description: 'a ClickHouse server used instead of chDB' })
  ),
  CLICKHOUSE_CLUSTER: Type.Optional(
    EnvText({
      description: 'cluster name: replicated tables + Distributed, DDL ON CLUSTER (needs CLICKHOUSE_URL)',
      accepted: 'a plain identifier',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$'
    })
  ),
  SOURCES: EnvText({
    description: 'comma list of ingest sources',
    accepted: SOURCES_ACCEPTED,
    default: 'sim'
  }),
  RECORD_DIR: Type.Optional(EnvDir({ description: 'record every raw venue message (gzipped NDJSON, hourly files)' })),
  REPLAY_SPEED: EnvText({
    description: 'pace of SOURCES=replay: 1 as recorded, 10 ten times faster, 0 or max as fast as possible',
    accepted: 'max or a number from 0 (as fast as possible) to 1000000',
    default: '1'
  }),
  SIM_SEED: EnvInt({ description: 'seed of the demo market', default: 42, minimum: 0, maximum: 2 ** 31 - 1 }),
  SIM_BACKFILL_DAYS: EnvInt({
    description: 'history the demo market writes on first start, days',
    default: 30,
    minimum: 0,
    maximum: 365
  }),
  SIM_MARKETS: Type.Optional(
    EnvInt({
      description:
        'perpetual markets of the demo market, the most liquid first (smaller shapes for tests and benchmarks); unset: all (~520)',
      minimum: 1,
      maximum: 100_000
    })
  ),
  ADMIN_TOKEN: Type.Optional(
    EnvText({
      description: 'bearer token of /v1/admin/*; unset: generated on first start',
      accepted: 'at least 16 characters without spaces',
      pattern: '^\\S{16,}$',
      secret: true
    })
  ),
  LOG_LEVEL: EnvEnum(LOG_LEVELS, { description: 'log level', default: 'info' }),
  INGEST_BATCH_ROWS: EnvInt({
    description: 'rows that seal an insert batch',
    default: 50_000,
    minimum: 1,
    maximum: 1_000_000
  }),
  INGEST_BULK_BATCH_ROWS: EnvInt({
    description: 'rows that seal a batch of bulk loads (the demo backfill, replays at full speed)',
    default: 250_000,
    minimum: 1,
    maximum: 1_000_000
  }),
  INGEST_FLUSH_MS: EnvInt({
    description: 'oldest a live batch gets before it is written, ms',
    default: 1_000,
    minimum: 10,
    maximum: 60_000
  }),
  INGEST_QUEUE_ROWS: EnvInt({
    description: 'rows one table may have queued before sources wait (backpressure)',
    default: 500_000,
    minimum: 1_000,
    maximum: 10_000_000
  }),
  CHDB_POOL_SIZE: EnvInt({ description: 'chDB connections = queries in flight', default: 4, minimum: 1, maximum: 32 }),
  EXPORT_MAX_CONCURRENT: Type.Optional(
    EnvInt({
      description: 'bulk exports streaming at once; on chDB below CHDB_POOL_SIZE (default min(2, pool - 1))',
      minimum: 1,
      maximum: 32
    })
  ),
  LIVE_PATH_PROBE: EnvEnum(['0', '1'], {
    description: 'diagnosis: time each live batch from the venue socket to the push stream (/v1/health live.path_ms)',
    default: '0'
  }),
  EXPORT_PIN_MERGED: EnvEnum(['0', '1'], {
    description: 'read candle partitions that are one merged part without FINAL in exports',
    default: '1'
  }),
  BODY_MEMORY_MB: EnvInt({
    description: 'request bodies held in memory at once across connections, MiB',
    default: 64,
    minimum: 1,
    maximum: 65_536
  }),
  PUBLIC_RATE_PER_MIN: EnvInt({
    description: 'public endpoints without a key: requests per minute per client IP',
    default: 60,
    minimum: 1,
    maximum: 1_000_000_000
  }),
  TRUSTED_PROXY_HOPS: EnvInt({
    description: 'reverse proxies whose X-Forwarded-For is trusted (0: header ignored)',
    default: 0,
    minimum: 0,
    maximum: 10
  }),
  SIGNUP: EnvEnum(['invite', 'open'], {
    description: "invite: after the first account sign-up needs an owner's invite; open: anyone may sign up",
    default: 'invite'
  })
})

/**
 * Every variable the service reads, by name: the service's own and each capability's. The docs' variable
 * tables list exactly these (test/unit/config-env-docs.test.ts).
 */
export const ENV_SCHEMA = Type.Object({
  ...SERVICE_ENV.properties,
  ...VENUE_ENV.properties,
  ...CHAIN_RPC_ENV.properties,
  ...CHAIN_SOURCES_ENV.properties,
  ...NODE_INTEL_ENV.properties,
  ...WATCH_ENV.properties,
  ...WEBHOOK_ENV.properties,
  ...ALERT_ENV.properties
})

/** REPLAY_SPEED: `max` is 0 (as fast as possible). */
function replaySpeed(raw: string): number {
  const n = raw === 'max' ? 0 : Number(raw)
  if (!Number.isFinite(n) || n < 0 || n > 1_000_000) {
    throw new ConfigError(`REPLAY_SPEED must be ${SERVICE_ENV.properties.REPLAY_SPEED.accepted} (got '${raw}')`)
  }
  return n
}

/**
 * `EXPORT_MAX_CONCURRENT`. On chDB every streaming export holds one of the `CHDB_POOL_SIZE` connections until
 * its client has read everything, so the cap stays below the pool (ingest and other reads keep at least
 * one): default min(2, pool - 1), at least 1 (with a pool of 1 an export holds the only connection).
 */
function exportMaxConcurrent(set: number | undefined, pool: number, server: boolean): number {
  if (server) return set ?? 2
  const most = Math.max(1, pool - 1)
  const cap = set ?? Math.min(2, most)
  if (cap > most) {
    throw new ConfigError(
      `EXPORT_MAX_CONCURRENT (${cap}) must be below CHDB_POOL_SIZE (${pool}): each streaming export holds a chDB connection until its client has read everything, and ingest and other reads need one left`
    )
  }
  return cap
}

/** Reads and validates the configuration. Throws ConfigError naming the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const e = readEnv(SERVICE_ENV, env)
  if (e.CLICKHOUSE_CLUSTER !== undefined && e.CLICKHOUSE_URL === undefined) {
    throw new ConfigError('CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a cluster is a ClickHouse server deployment)')
  }
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    clickhouseUrl: e.CLICKHOUSE_URL,
    clickhouseCluster: e.CLICKHOUSE_CLUSTER,
    sources: parseSources(env, e.SOURCES),
    venues: venueConfigs(env),
    recordDir: e.RECORD_DIR === undefined ? undefined : path.resolve(e.RECORD_DIR),
    replaySpeed: replaySpeed(e.REPLAY_SPEED),
    simSeed: e.SIM_SEED,
    simBackfillDays: e.SIM_BACKFILL_DAYS,
    simMarkets: e.SIM_MARKETS,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    batchRows: e.INGEST_BATCH_ROWS,
    bulkBatchRows: e.INGEST_BULK_BATCH_ROWS,
    flushMs: e.INGEST_FLUSH_MS,
    queueRows: e.INGEST_QUEUE_ROWS,
    chdbPoolSize: e.CHDB_POOL_SIZE,
    exportMaxConcurrent: exportMaxConcurrent(e.EXPORT_MAX_CONCURRENT, e.CHDB_POOL_SIZE, e.CLICKHOUSE_URL !== undefined),
    exportPinMerged: e.EXPORT_PIN_MERGED === '1',
    livePathProbe: e.LIVE_PATH_PROBE === '1',
    bodyMemoryBytes: e.BODY_MEMORY_MB * 1024 * 1024,
    publicRatePerMinute: e.PUBLIC_RATE_PER_MIN,
    trustedProxyHops: e.TRUSTED_PROXY_HOPS,
    alertSources: alertSources(env),
    alertAllowedIps: alertAllowedIps(env),
    webhooks: webhookConfig(env),
    chains: chainsConfig(env),
    nodeIntel: nodeIntelConfig(env),
    chainSources: chainSourcesConfig(env),
    signup: e.SIGNUP
  })
}
