/**
 * @module
 * Inbound alert settings (docs/alerts.md), read once at start: `ALERT_SOURCES` and `ALERT_ALLOWED_IPS`.
 */
import { ConfigError } from '../config/config-error.js'
import { Type } from '@sinclair/typebox'
import { EnvText, readEnv, type Env } from '../config/env.js'
import { parseAllowList } from './sender-allow-list.js'

/** An alert source: the path segment of POST /v1/{name}/webhook. */
const ALERT_SOURCE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/

/** `ALERT_SOURCES` and `ALERT_ALLOWED_IPS`. */
export const ALERT_ENV = Type.Object({
  ALERT_SOURCES: EnvText({
    description: 'further inbound alert sources, each at POST /v1/<name>/webhook (tradingview is always served)',
    accepted: "a comma list of names of 1 to 32 lower-case letters, digits, '-' or '_'",
    default: ''
  }),
  ALERT_ALLOWED_IPS: EnvText({
    description: 'addresses or CIDRs inbound alerts are accepted from; tradingview = its published senders; empty: any',
    accepted: 'a comma list of addresses and CIDRs',
    default: ''
  })
})

/** `ALERT_SOURCES`: alert sources besides `tradingview` (always served, always first), e.g. `trendspider,mybot`. */
export function alertSources(env: Env): readonly string[] {
  const raw = readEnv(ALERT_ENV, env).ALERT_SOURCES
  const out = ['tradingview']
  for (const item of raw.split(',')) {
    const name = item.trim()
    if (name === '') continue
    if (!ALERT_SOURCE_NAME.test(name)) {
      throw new ConfigError(`ALERT_SOURCES must be ${ALERT_ENV.properties.ALERT_SOURCES.accepted} (got '${name}')`)
    }
    if (!out.includes(name)) out.push(name)
  }
  return Object.freeze(out)
}

/** `ALERT_ALLOWED_IPS`: addresses, CIDRs and `tradingview` (its published senders), normalized; empty accepts any address. */
export function alertAllowedIps(env: Env): readonly string[] {
  try {
    return Object.freeze(parseAllowList(readEnv(ALERT_ENV, env).ALERT_ALLOWED_IPS))
  } catch (err) {
    throw new ConfigError(
      `ALERT_ALLOWED_IPS must be ${ALERT_ENV.properties.ALERT_ALLOWED_IPS.accepted}: ${(err as Error).message}`
    )
  }
}
