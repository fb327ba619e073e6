/**
 * @module
 * Accounts (docs/accounts.md), `npm run bench -- accounts`. Same-run ratios, alternating rounds:
 * - a keyed call served through the session cookie (cookie parse, SHA-256 of the session id, origin and
 *   session lookup, the dashboard key) vs the same call with X-API-Key (the reference), and X-API-Key with
 *   a cookie also sent (the adapter's extra header reads), on `GET /v1/usage` (keyed, uncounted, small);
 * - logins per second over HTTP (scrypt N=2^15 r=8 p=1 at 2 hashes at once, plus a session write) vs raw
 *   scrypt hashes per second with the same parameters and concurrency in this process (the reference).
 */
import crypto from 'node:crypto'
import { SCRYPT_N, SCRYPT_P, SCRYPT_R, HASH_CONCURRENCY } from '../../engine/accounts/password.js'
import { load, type LoadResult } from '../http/load.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { median } from '../stats.js'

const PORT = 19251
const PASSWORD = 'bench password 0123'
/** Logins (and reference hashes) per round. */
const LOGINS = 24

const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100

async function rawHashesPerS(): Promise<number> {
  const started = performance.now()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next++ < LOGINS) {
      await new Promise<void>((resolve, reject) =>
        crypto.scrypt(
          PASSWORD,
          crypto.randomBytes(16),
          64,
          { N: SCRYPT_N, r: SCRYPT_R, p: SCRYPT_P, maxmem: 64 * 2 ** 20 },
          (e) => (e ? reject(e) : resolve())
        )
      )
    }
  }
  await Promise.all(Array.from({ length: HASH_CONCURRENCY }, worker))
  return (LOGINS / (performance.now() - started)) * 1000
}

async function loginsPerS(base: string): Promise<number> {
  const started = performance.now()
  const answers = await Promise.all(
    Array.from({ length: LOGINS }, () =>
      fetch(`${base}/v1/account/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'login@example.com', password: PASSWORD })
      })
    )
  )
  if (answers.some((r) => r.status !== 200)) throw new Error(`login failed: ${answers.map((r) => r.status).join(',')}`)
  return (LOGINS / (performance.now() - started)) * 1000
}

export async function accountsBench(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  const server = await startBenchServer(PORT, { SOURCES: 'none', ADMIN_TOKEN: BENCH_ADMIN })
  const { base } = server
  try {
    const signup = await fetch(`${base}/v1/account/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD })
    })
    const cookie = /^tw_session=([^;]+)/.exec(signup.headers.getSetCookie()[0] ?? '')![1]!
    const { csrf_token: csrf } = (await signup.json()) as { csrf_token: string }
    const created = (await (
      await fetch(`${base}/v1/account/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `tw_session=${cookie}`, 'x-csrf-token': csrf },
        body: '{"name":"bench"}'
      })
    ).json()) as { key: string }
    // logins go to a second account: each opens a session, and an account keeps its 20 most recent
    const invite = (await (
      await fetch(`${base}/v1/account/invites`, {
        method: 'POST',
        headers: { cookie: `tw_session=${cookie}`, 'x-csrf-token': csrf }
      })
    ).json()) as { token: string }
    await fetch(`${base}/v1/account/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'login@example.com', password: PASSWORD, invite: invite.token })
    })
    const variants = {
      key: { 'x-api-key': created.key },
      session: { cookie: `tw_session=${cookie}` },
      key_with_cookie: { 'x-api-key': created.key, cookie: `tw_session=${cookie}` }
    } as const
    const order = Object.keys(variants) as (keyof typeof variants)[]
    const runs: Record<keyof typeof variants, LoadResult[]> = { key: [], session: [], key_with_cookie: [] }
    const logins: number[] = []
    const hashes: number[] = []
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < order.length; i++) {
        const which = order[(i + r) % order.length]!
        const res = await load(`${base}/v1/usage`, 64, seconds, variants[which])
        if (res.non2xx > 0) throw new Error(`${which}: ${res.non2xx} non-2xx answers`)
        runs[which].push(res)
        console.log(`accounts round ${r + 1} ${which}: ${res.req_per_s} req/s p99 ${res.p99_ms} ms`)
      }
      // alternating which of the pair goes first
      const first = r % 2 === 0 ? await rawHashesPerS() : 0
      const perS = await loginsPerS(base)
      const raw = r % 2 === 0 ? first : await rawHashesPerS()
      const pair = [raw, perS] as const
      hashes.push(raw)
      logins.push(perS)
      console.log(`accounts round ${r + 1}: ${pair[1].toFixed(1)} logins/s, ${pair[0].toFixed(1)} raw scrypt/s`)
    }
    const m = (k: keyof typeof runs): number => median(runs[k].map((x) => x.req_per_s))
    return {
      endpoint: 'GET /v1/usage',
      median_req_per_s: { key: m('key'), session: m('session'), key_with_cookie: m('key_with_cookie') },
      session_vs_key: ratio(m('session'), m('key')),
      key_with_cookie_vs_key: ratio(m('key_with_cookie'), m('key')),
      p99_ms: Object.fromEntries(order.map((k) => [k, median(runs[k].map((x) => x.p99_ms))])),
      logins_per_s: Math.round(median(logins) * 10) / 10,
      raw_scrypt_per_s: Math.round(median(hashes) * 10) / 10,
      logins_vs_raw_scrypt: ratio(median(logins), median(hashes)),
      scrypt: { N: SCRYPT_N, r: SCRYPT_R, p: SCRYPT_P, concurrency: HASH_CONCURRENCY }
    }
  } finally {
    await server.stop()
  }
}
