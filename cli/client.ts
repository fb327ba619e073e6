/**
 * @module
 * The CLI's client for the running server's admin API (`Authorization: Bearer <token>`). The CLI never opens
 * the data directory's database (the embedded store allows one process per data directory); at most it
 * reads the one-line token file the server wrote there.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UsageError } from './args.js'

/** Longest wait for one answer, ms: admin calls take milliseconds, but a server busy backfilling may lag. */
const REQUEST_TIMEOUT_MS = 30_000
/** Name of the token file the server writes into DATA_DIR when ADMIN_TOKEN is unset (server/admin-token.ts). */
const TOKEN_FILE = 'admin_token'

/** A failure to report as one line `tidewatch: <message>` with `exitCode` (1 = runtime, 2 = configuration). */
export class CliError extends Error {
  override readonly name = 'CliError'
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    options?: ErrorOptions
  ) {
    super(message, options)
  }
}

/** Where the admin token comes from: a value given directly, or the server's token file (read on first use). */
export type TokenSource =
  | { readonly kind: 'value'; readonly value: string; readonly from: '--token' | 'ADMIN_TOKEN' }
  | { readonly kind: 'file'; readonly file: string }

export interface AdminTarget {
  /** server base URL, no trailing slash */
  readonly url: string
  readonly token: TokenSource
}

/** --url, else TIDEWATCH_URL, else http://127.0.0.1:${PORT:-8080}; --token, else ADMIN_TOKEN, else the file. */
export function resolveTarget(
  flags: { readonly url?: string | undefined; readonly token?: string | undefined },
  env: NodeJS.ProcessEnv
): AdminTarget {
  const raw = flags.url || env['TIDEWATCH_URL'] || `http://127.0.0.1:${env['PORT'] || '8080'}`
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new UsageError(`--url / TIDEWATCH_URL must be an http(s) URL, got ${JSON.stringify(raw)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--url / TIDEWATCH_URL must be an http(s) URL, got ${JSON.stringify(raw)}`)
  }
  const url = parsed.href.replace(/\/+$/, '')
  if (flags.token) return { url, token: { kind: 'value', value: flags.token, from: '--token' } }
  if (env['ADMIN_TOKEN']) return { url, token: { kind: 'value', value: env['ADMIN_TOKEN'], from: 'ADMIN_TOKEN' } }
  return { url, token: { kind: 'file', file: path.resolve(env['DATA_DIR'] || './data', TOKEN_FILE) } }
}

function readToken(source: TokenSource): string {
  if (source.kind === 'value') return source.value
  let text: string
  try {
    text = fs.readFileSync(source.file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? `${source.file} does not exist (the server writes it on first start when ADMIN_TOKEN is unset)`
        : `cannot read ${source.file} (${code})`
    throw new CliError(
      `no admin token: ${why}; pass --token, set ADMIN_TOKEN, or set DATA_DIR to the server's data directory`,
      2,
      { cause: err }
    )
  }
  const token = text.trim()
  if (!token) throw new CliError(`no admin token: ${source.file} is empty`, 2)
  return token
}

function describe(source: TokenSource): string {
  return source.kind === 'value' ? source.from : source.file
}

export class AdminClient {
  private token: string | undefined

  constructor(private readonly target: AdminTarget) {}

  /** the server's base URL (commands that call non-admin endpoints build on it) */
  get url(): string {
    return this.target.url
  }

  /**
   * POSTs a JSON body and returns the response of a 2xx unread (streamed answers such as import events);
   * anything else throws `CliError` with the server's message.
   */
  async open(pathname: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    this.token ??= readToken(this.target.token)
    let res: Response
    try {
      res = await fetch(this.target.url + pathname, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {})
      })
    } catch (err) {
      throw new CliError(`cannot reach the server at ${this.target.url} (is it running?)`, 1, { cause: err })
    }
    if (res.ok) return res
    const message = envelopeMessage(parseJson(await res.text())) ?? `POST ${pathname} answered HTTP ${res.status}`
    throw new CliError(message + (res.status === 401 ? ` (admin token from ${describe(this.target.token)})` : ''))
  }

  /** Sends one request and returns the parsed JSON answer of a 2xx; anything else throws `CliError`. */
  async request<T>(method: 'GET' | 'POST' | 'DELETE', pathname: string, body?: unknown): Promise<T> {
    this.token ??= readToken(this.target.token)
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    let res: Response
    let text: string
    try {
      res = await fetch(this.target.url + pathname, {
        method,
        headers,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      text = await res.text()
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') {
        throw new CliError(`the server at ${this.target.url} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`, 1, {
          cause: err
        })
      }
      throw new CliError(`cannot reach the server at ${this.target.url} (is it running?)`, 1, { cause: err })
    }
    const parsed = parseJson(text)
    if (res.ok) {
      if (parsed === undefined) throw new CliError(`${this.target.url} answered ${res.status} without JSON`)
      return parsed as T
    }
    const message = envelopeMessage(parsed) ?? `${method} ${pathname} answered HTTP ${res.status}`
    const hint = res.status === 401 ? ` (admin token from ${describe(this.target.token)})` : ''
    throw new CliError(message + hint)
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** The `message` of the server's error envelope `{"error":{"code","message","param"?}}`, if that is the body. */
function envelopeMessage(body: unknown): string | undefined {
  const error = (body as { error?: { message?: unknown } } | undefined)?.error
  return typeof error?.message === 'string' ? error.message : undefined
}
