/**
 * @module
 * Password hashing: scrypt from node:crypto (memory-hard, no native package), run on the libuv thread pool
 * through the async API so a hash never blocks the event loop. Parameters: N = 2^15, r = 8, p = 1 (32 MiB
 * of memory and about 50-100 ms of one core per hash), a 64-byte derived key and a 16-byte random salt.
 * The stored form names its parameters, `scrypt$N$r$p$<salt b64url>$<key b64url>`, so they can be raised
 * later without invalidating stored hashes. Checks compare in constant time.
 * At most HASH_CONCURRENCY hashes run at once and HASH_QUEUE wait; past that a request is refused (503),
 * so a flood of sign-ups or logins cannot take every thread and gigabytes of memory.
 */
import crypto from 'node:crypto'
import { ApiError } from '../errors.js'
import { Semaphore, SemaphoreFullError } from '../runtime/semaphore.js'

/** scrypt cost: CPU and memory grow linearly with N (128 * N * r bytes = 32 MiB). */
export const SCRYPT_N = 2 ** 15
export const SCRYPT_R = 8
export const SCRYPT_P = 1
/** derived key length, bytes */
const KEY_BYTES = 64
/** salt length, bytes */
const SALT_BYTES = 16
/** node refuses scrypt above 32 MiB by default; the parameters need exactly that plus a little */
const MAXMEM = 64 * 1024 * 1024
/** Hashes computed at once (each holds 32 MiB and one thread-pool thread). */
export const HASH_CONCURRENCY = 2
/** Hashes waiting for a slot; more answer 503 unavailable. */
export const HASH_QUEUE = 64

/** Password rules (docs/accounts.md): 10 to 200 code points, anything else allowed. */
export const PASSWORD_MIN = 10
export const PASSWORD_MAX = 200

export interface HashCounters {
  hashes: number
  /** hashes refused because HASH_QUEUE were already waiting */
  hash_queue_full: number
}

export const hashCounters: HashCounters = { hashes: 0, hash_queue_full: 0 }

/** the hashing slots: HASH_CONCURRENCY at once, HASH_QUEUE waiting */
const slots = new Semaphore(HASH_CONCURRENCY, HASH_QUEUE)

async function slot<T>(fn: () => Promise<T>): Promise<T> {
  try {
    await slots.acquire()
  } catch (err) {
    if (!(err instanceof SemaphoreFullError)) throw err
    hashCounters.hash_queue_full++
    throw new ApiError('unavailable', 'too many sign-ups or logins in progress; retry shortly', {
      headers: { 'retry-after': '1' }
    })
  }
  try {
    return await fn()
  } finally {
    slots.release()
  }
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return slot(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        hashCounters.hashes++
        crypto.scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N: n, r, p, maxmem: MAXMEM }, (err, key) =>
          err ? reject(err) : resolve(key)
        )
      })
  )
}

/** The message of a password that breaks the rules, or null. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length
  if (length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`
  if (length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`
  return null
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES)
  const key = await derive(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
  return `scrypt$${SCRYPT_N}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** A stored hash of a random password: checked against when the email is unknown, so a miss costs a hash too. */
let decoy: Promise<string> | undefined

/** Whether `password` matches `stored`; `stored` null (no such account) still costs one hash, then false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const target = stored ?? (await (decoy ??= hashPassword(crypto.randomBytes(16).toString('hex'))))
  const parts = target.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const salt = Buffer.from(parts[4]!, 'base64url')
  const expected = Buffer.from(parts[5]!, 'base64url')
  const key = await derive(password, salt, n, r, p)
  return key.length === expected.length && crypto.timingSafeEqual(key, expected) && stored !== null
}
