/**
 * @module
 * The dashboard's client of the public /v1 API. Credentials, in order: an API key pasted on the Account
 * page for development (kept in localStorage, sent as X-API-Key, needs no CSRF token), else the session
 * cookie `tw_session` (sent by the browser; every state-changing call carries X-CSRF-Token, the token the
 * account answers returned). Errors come back as ApiFailure with the API's error envelope.
 */

import type { Account, AccountSession } from './api-types.js'

const DEV_KEY = 'tidewatch.devKey'

export type { Account }

/** The signed-in account and its CSRF token; null when signed out. */
let session: { account: Account; csrf: string } | null = null
const listeners = new Set<() => void>()

export function currentAccount(): Account | null {
  return session?.account ?? null
}

export function setSession(account: Account | null, csrf = ''): void {
  session = account ? { account, csrf } : null
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
  for (const l of listeners) l()
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string
  ) {
    super(message)
  }
}

/**
 * A JSON call. `body` is sent as JSON; 204 answers resolve to null. `T` is the answer's type from
 * api-types.ts (the API schemas); a call whose answer is not read leaves it `unknown`.
 */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const key = devKey()
  if (key) headers['x-api-key'] = key
  else if (method !== 'GET' && session?.csrf) headers['x-csrf-token'] = session.csrf
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  if (res.status === 204) return null as T
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  if (!res.ok) {
    const err = (parsed as { error?: { code?: string; message?: string } } | null)?.error
    throw new ApiFailure(res.status, err?.code ?? String(res.status), err?.message ?? (text || res.statusText))
  }
  return parsed as T
}

/** Reads the session at start (GET /v1/account); signed out on 401. */
export async function loadSession(): Promise<void> {
  try {
    const r = await api<AccountSession>('GET', '/v1/account')
    setSession(r.account, r.csrf_token)
  } catch {
    setSession(null)
  }
}

/** Whether calls can be made as a key holder (signed in, or a development key). */
export function authenticated(): boolean {
  return session !== null || devKey() !== ''
}
