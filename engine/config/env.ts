/**
 * @module
 * Reading one environment variable, for every capability's configuration. A variable set to only blanks
 * counts as unset (its default applies); values are trimmed. Each reader throws ConfigError with a message
 * that names the variable, the accepted values and what was given, e.g.
 * `PORT must be an integer from 0 to 65535 (got 'x')`.
 */
import path from 'node:path'
import { ConfigError } from './config-error.js'

/** The environment as read at start (`process.env` in production, a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>

/** The variable's trimmed value, or undefined when it is unset or only blanks. */
export function envValue(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim()
}

/** A decimal integer from `min` to `max`; `def` when unset. */
export function envInt(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = envValue(env, name)
  if (raw === undefined) return def
  const n = Number(raw)
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got '${raw}')`)
  }
  return n
}

/** A finite number from `min` to `max`; `def` when unset. */
export function envNumber(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = envValue(env, name)
  if (raw === undefined) return def
  const n = Number(raw)
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max} (got '${raw}')`)
  }
  return n
}

/** One of `allowed`; `def` when unset. */
export function envOneOf<T extends string>(env: Env, name: string, def: T, allowed: readonly T[]): T {
  const raw = envValue(env, name)
  if (raw === undefined) return def
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got '${raw}')`)
  }
  return raw as T
}

/**
 * `raw`, checked as a URL of one of `protocols` (`'http:'`, `'wss:'`, ...) with a host; `name` is the
 * variable it came from, `example` a URL the message offers.
 */
export function checkUrl(name: string, raw: string, protocols: readonly string[], example: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be a URL like ${example} (got '${raw}')`)
  }
  if (!protocols.includes(url.protocol) || url.hostname === '') {
    throw new ConfigError(`${name} must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')} (got '${raw}')`)
  }
  return raw
}

/** A URL of one of `protocols` (see checkUrl), or undefined when unset. */
export function envUrl(env: Env, name: string, protocols: readonly string[], example: string): string | undefined {
  const raw = envValue(env, name)
  return raw === undefined ? undefined : checkUrl(name, raw, protocols, example)
}

/** A directory, resolved against the working directory, or undefined when unset. */
export function envDir(env: Env, name: string): string | undefined {
  const raw = envValue(env, name)
  return raw === undefined ? undefined : path.resolve(raw)
}
