/**
 * @module
 * API key format: `tw_live_<id>_<secret>`. The id (10 lowercase base-36 characters) is public and names
 * the key in lists, logs and usage; the secret (32 random bytes, base64url) is shown once at creation and
 * only its SHA-256 is stored. Checks compare digests in constant time.
 */
import crypto from 'node:crypto'

export const KEY_PREFIX = 'tw_live_'
const KEY_PATTERN = /^tw_live_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/

export interface NewKey {
  readonly id: string
  /** the full key to hand to the user, once */
  readonly key: string
  /** hex SHA-256 of the secret part */
  readonly secretSha256: string
}

export function sha256Hex(s: string): string {
  return crypto.createHash('sha256').update(s).digest('hex')
}

export function generateKey(): NewKey {
  const id = Array.from(crypto.randomBytes(10), (b) => (b % 36).toString(36)).join('')
  const secret = crypto.randomBytes(32).toString('base64url')
  return { id, key: `${KEY_PREFIX}${id}_${secret}`, secretSha256: sha256Hex(secret) }
}

/** Splits a presented key into id and secret, or null when it does not have the key format. */
export function parseKey(presented: string): { id: string; secret: string } | null {
  const m = KEY_PATTERN.exec(presented)
  return m ? { id: m[1]!, secret: m[2]! } : null
}

/** Constant-time comparison of a presented secret with a stored hex digest. */
export function secretMatches(secret: string, storedSha256: string): boolean {
  const a = Buffer.from(sha256Hex(secret), 'hex')
  const b = Buffer.from(storedSha256, 'hex')
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}
