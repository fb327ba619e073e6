/**
 * @module
 * The venues' variables and `config.venues`: each registry venue (catalog/venues.ts joined with its module,
 * ingest/sources/venues.ts) reads `<PREFIX>_WS_URL`, `<PREFIX>_REST_URL` (defaults from its catalog entry)
 * and the variables its module declares (`<PREFIX>_SYMBOLS`, Deribit's `_CURRENCIES`).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { VENUES, type VenueConfigs } from '../ingest/sources/venues.js'
import type { VenueEnv } from '../ingest/sources/venue-settings.js'
import { ConfigError } from '../engine/config/config-error.js'
import { EnvUrl, envValue, readEnv, readVariable, type Env } from '../engine/config/env.js'

/** Venue `v`'s variables, by full name: `<PREFIX>_WS_URL`, `<PREFIX>_REST_URL` and the module's own. */
function venueEnvSchema(v: (typeof VENUES)[number]): Record<string, TSchema> {
  const out: Record<string, TSchema> = {
    [`${v.envPrefix}_WS_URL`]: EnvUrl('ws', v.wsUrl, {
      description: `${v.name} WebSocket endpoint or base`,
      default: v.wsUrl,
      family: '<PREFIX>_WS_URL'
    }),
    [`${v.envPrefix}_REST_URL`]: EnvUrl('http', v.restUrl, {
      description: `${v.name} REST base`,
      default: v.restUrl,
      family: '<PREFIX>_REST_URL'
    })
  }
  for (const [suffix, schema] of Object.entries(v.variables)) out[`${v.envPrefix}_${suffix}`] = schema
  return out
}

/** Every venue's variables (catalog/venues.ts and each venue's module). */
export const VENUE_ENV = Type.Object(Object.assign({}, ...VENUES.map(venueEnvSchema)) as Record<string, TSchema>)

/** A venue's own variables (`<prefix>_<suffix>`, checked against its schema), errors naming the variable. */
function venueEnv(env: Env, prefix: string, variables: Readonly<Record<string, TSchema>>): VenueEnv {
  return {
    get: (suffix) => {
      const schema = variables[suffix]
      const value =
        schema === undefined ? envValue(env, `${prefix}_${suffix}`) : readVariable(env, `${prefix}_${suffix}`, schema)
      return value === undefined ? undefined : String(value)
    },
    fail: (suffix, message) => {
      throw new ConfigError(`${prefix}_${suffix} ${message}`)
    }
  }
}

/** `config.venues`: every registry entry's URLs (default from the entry, trailing slashes removed) and settings. */
export function venueConfigs(env: Env): VenueConfigs {
  const out: Record<string, unknown> = {}
  const urls = readEnv(VENUE_ENV, env) as Record<string, string>
  const base = (name: string): string => urls[name]!.replace(/\/+$/, '')
  for (const v of VENUES) {
    out[v.name] = Object.freeze({
      wsUrl: base(`${v.envPrefix}_WS_URL`),
      restUrl: base(`${v.envPrefix}_REST_URL`),
      ...v.settings(venueEnv(env, v.envPrefix, v.variables))
    })
  }
  return Object.freeze(out) as VenueConfigs
}
