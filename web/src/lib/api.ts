/**
 * @module
 * The dashboard's client of the public /v1 API: the typed client of clients/ts over the page's own origin.
 * Credentials, in order: an API key pasted on the Account page for development (kept in localStorage, sent
 * as X-API-Key, needs no CSRF token), else the session cookie `tw_session` (sent by the browser to its own
 * origin; every state-changing call carries X-CSRF-Token, the token the account answers returned). A failed
 * call throws TidewatchError with the API's error envelope.
 */
import { createClient, TidewatchError } from '@tidewatch/client'
import type { Account } from './api-types.js'

const DEV_KEY = 'tidewatch.devKey'

export type { Account }
export { TidewatchError }

/** The signed-in account and its CSRF token; null when signed out. */
let session: { account: Account; csrf: string } | null = null
const listeners = new Set<() => void>()

export function currentAccount(): Account | null {
  return session?.account ?? null
}

export function setSession(account: Account | null, csrf = ''): void {
  session = account ? { account, csrf } : null
  sessionChanged()
}

/** Tells the views that who the caller is, or what its plan includes, changed. */
export function sessionChanged(): void {
  for (const l of listeners) l()
}

export function onSessionChange(l: () => void): () => void {
  listeners.add(l)
  return () => listeners.delete(l)
}

export function devKey(): string {
  try {
    return localStorage.getItem(DEV_KEY) ?? ''
  } catch {
    return ''
  }
}

export function setDevKey(key: string): void {
  if (key) localStorage.setItem(DEV_KEY, key)
  else localStorage.removeItem(DEV_KEY)
  sessionChanged()
}

/** Calls of the page's own origin; the session cookie goes with them (credentials: same-origin). */
export const client = createClient({ baseUrl: '', credentials: 'same-origin' })
// the credentials are read per request: the key and the session change while the page lives
client.use({
  onRequest({ request }) {
    const key = devKey()
    if (key) request.headers.set('x-api-key', key)
    else if (request.method !== 'GET' && session?.csrf) request.headers.set('x-csrf-token', session.csrf)
    return request
  }
})

/** Reads the session at start (GET /v1/account); signed out on 401. */
export async function loadSession(): Promise<void> {
  try {
    const r = await client.GET('/v1/account')
    setSession(r.account, r.csrf_token)
  } catch {
    setSession(null)
  }
}

/** Whether calls can be made as a key holder (signed in, or a development key). */
export function authenticated(): boolean {
  return session !== null || devKey() !== ''
}
