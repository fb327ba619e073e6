/**
 * @module
 * Alert secret format: `tw_alert_<key id>_<secret>`. An inbound alert carries no API key (TradingView
 * cannot set headers), so its `secret` field names the key it runs under: the key's public 10-character id
 * makes the lookup one map access, and the 43-character random part (32 bytes, base64url) proves it. Only
 * the SHA-256 of the random part is stored; checks compare digests in constant time (the API keys' design,
 * engine/access/api-key.ts). The secret can only send alerts for its key: it is not the API key.
 */
import crypto from 'node:crypto'
import { secretMatches, sha256Hex } from '../access/api-key.js'

export const ALERT_SECRET_PREFIX = 'tw_alert_'
const ALERT_SECRET_PATTERN = /^tw_alert_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/

/** Compared against when the key id is unknown, so a miss costs what a wrong secret costs. */
const NO_DIGEST = sha256Hex('')

export interface NewAlertSecret {
  /** the full secret to hand to the user, once */
  readonly secret: string
  /** hex SHA-256 of the random part */
  readonly secretSha256: string
}

export function generateAlertSecret(keyId: string): NewAlertSecret {
  const random = crypto.randomBytes(32).toString('base64url')
  return { secret: `${ALERT_SECRET_PREFIX}${keyId}_${random}`, secretSha256: sha256Hex(random) }
}

/** Splits a presented secret into key id and random part, or null when it does not have the format. */
export function parseAlertSecret(presented: string): { keyId: string; random: string } | null {
  const m = ALERT_SECRET_PATTERN.exec(presented)
  return m ? { keyId: m[1]!, random: m[2]! } : null
}

/** Constant-time check of a presented random part against a stored digest ('' = no secret: never matches). */
export function alertSecretMatches(random: string, storedSha256: string): boolean {
  if (storedSha256 === '') {
    secretMatches(random, NO_DIGEST)
    return false
  }
  return secretMatches(random, storedSha256)
}
