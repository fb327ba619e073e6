/**
 * @module
 * The uWebSockets.js adapter (with uws-respond.ts, uws-body.ts and uws-stream.ts, the only files that know
 * uWS): routing a uWS request into the application. Rules it follows (uWS examples): attach
 * `onAborted` before any await; never touch `res` after an abort; write status, headers and body inside
 * `cork`; send large bodies with `tryEnd` + `onWritable` so a slow client does not make memory grow.
 * Request bodies are read only for routes that take one, and only once the body's framing, its declared
 * length (413 at once beyond the route's limit) and the caller's access (401/403/429 from the headers) have
 * passed; a refusal before the body stops reading it (see `refuse`), so the body is never read. Bodies in flight are
 * bounded across connections (body-budget.ts): buffered ones share a byte budget, large admin bodies are
 * spooled to temp files (uws-body.ts).
 * Answers are written by uws-respond.ts (`tryEndBackpressure()` is re-exported from it).
 */
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import uWS from 'uWebSockets.js'
import { ApiError } from '../../engine/errors.js'
import type { App } from '../app.js'
import type { StreamService } from '../stream/stream-service.js'
import { attachStream } from './uws-stream.js'
import { answerFailure, send, UWS_LENGTH, writtenThrough } from './uws-respond.js'

export { tryEndBackpressure } from './uws-respond.js'
import { BodyBudget, SPOOLED_BODIES, type BodyCounters } from './body-budget.js'
import { declaredLength } from './framing.js'
import {
  bodiesBusy,
  readBuffered,
  removeSpool,
  spoolBody,
  tooLarge,
  type Aborted,
  type Reservation,
  type SpooledBody
} from './uws-body.js'
import type { Match } from '../router.js'
import { isStreamBody, type HttpRequest, type HttpResponse } from './types.js'
import { ACCOUNT_REQUEST_HEADERS } from '../accounts/session-gate.js' // accounts
import { WEB_REQUEST_HEADERS } from '../web/web-route.js'

/** Shared empty query for requests without one; URLSearchParams is never mutated by handlers. */
const EMPTY_QUERY = new URLSearchParams()

export interface HttpServer {
  readonly port: number
  /** stops accepting connections; in-flight responses complete */
  close(): void
  /** the request body counters (body-budget.ts) */
  bodies(): BodyCounters
}

/**
 * The request headers the application reads. Reading only these is cheaper than copying every header of
 * every request (each read is a native call, each value found a string conversion), and the body framing
 * headers are read only for routes that take a body; the forwarded address only for calls without a key (the
 * per-IP throttle). On a keyed route (access `key` or `public`, server/access/access-control.ts) nothing reads
 * `authorization` (the admin token), and a call there with a key is never authenticated by its session
 * cookie, so a GET with a key reads neither. A handler needing another header adds it here.
 */
function readHeaders(req: uWS.HttpRequest, bodyRoute: boolean, keyedRoute: boolean): Record<string, string> {
  const headers: Record<string, string> = {}
  const key = req.getHeader('x-api-key')
  if (key !== '') {
    headers['x-api-key'] = key
    if (keyedRoute && !bodyRoute) return headers
  } else {
    const forwarded = req.getHeader('x-forwarded-for')
    if (forwarded !== '') headers['x-forwarded-for'] = forwarded
  }
  if (!keyedRoute) {
    const auth = req.getHeader('authorization')
    if (auth !== '') headers['authorization'] = auth
  }
  // accounts (docs/accounts.md): the session cookie and what its CSRF and origin checks read
  const cookie = req.getHeader('cookie')
  if (cookie !== '') headers['cookie'] = cookie
  if (cookie !== '' || bodyRoute) {
    for (const name of ACCOUNT_REQUEST_HEADERS) {
      const v = req.getHeader(name)
      if (v !== '') headers[name] = v
    }
  }
  if (bodyRoute) {
    const v = req.getHeader('content-type')
    if (v !== '') headers['content-type'] = v
  }
  return headers
}

/**
 * A request as the application sees it, and its abort state (one object per request). The client address
 * is converted only when something asks for it (the public throttle): that costs more than the rest of the
 * request; the query string is parsed only when something reads `query` (a cached validation reads only
 * `rawQuery`). After an abort `res` may not be touched, so `ip` reads ''.
 */
class UwsRequest implements HttpRequest, Aborted {
  // The fields declared with `declare` are not set per request: most requests never set them, and an
  // unset one reads `undefined` (no field, no slot), so the object every request allocates stays small
  // (docs/benchmarks.md, "The request path's garbage").
  declare private address?: string
  declare private parsed?: URLSearchParams
  aborted = false
  declare onAbort?: () => void
  /** the answer closes the connection (the request's framing is ambiguous); unset: false */
  declare closeAfter?: boolean
  /** uWS closes the connection after the handler (a Content-Length it cannot take; writtenThrough); unset: false */
  declare writeThrough?: boolean
  /** set once spooled (routes with `spoolBody`); unset: none */
  declare bodyFile?: SpooledBody | null

  constructor(
    private readonly res: uWS.HttpResponse,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly headers: Record<string, string>,
    /** set once read (routes that take a body) */
    public body: Buffer | null
  ) {}

  get query(): URLSearchParams {
    return (this.parsed ??= this.rawQuery === '' ? EMPTY_QUERY : new URLSearchParams(this.rawQuery))
  }

  get ip(): string {
    return (this.address ??= this.aborted ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString())
  }
}

/**
 * Registers the abort hook. uWS needs it before the handler returns without having ended the response
 * (an async handler, a streamed or backpressured body, a body still to read); a response ended inside the
 * handler needs none, so the hot synchronous path skips this closure and native call.
 */
function watchAbort(res: uWS.HttpResponse, state: Aborted): void {
  res.onAborted(() => {
    state.aborted = true
    state.onAbort?.()
  })
}

/** With `stream`, `/v1/stream` upgrades to the push stream (server/http/uws-stream.ts). */
/** The listen address is taken or not allowed (a configuration error: exit 2 naming PORT/HOST). */
export class ListenError extends Error {
  override readonly name = 'ListenError'
}

/** `ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT` of uWS (its typings lack the host + options overload). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1

type ListenCallback = (token: uWS.us_listen_socket | false) => void

/** `listen(host, port, options, cb)`: the native binding takes it; the shipped typings do not declare it. */
function listenExclusive(server: uWS.TemplatedApp, host: string, port: number, cb: ListenCallback): void {
  ;(server.listen as unknown as (h: string, p: number, o: number, c: ListenCallback) => void).call(
    server,
    host,
    port,
    LIBUS_LISTEN_EXCLUSIVE_PORT,
    cb
  )
}

/** Every Content-Length of a request that has one (uWS frames by the first): its length or a 400. */
function framingOf(req: uWS.HttpRequest): number | ApiError {
  const values: string[] = []
  let transferEncoding = false
  req.forEach((name, value) => {
    if (name === 'content-length') values.push(value)
    else if (name === 'transfer-encoding') transferEncoding = true
  })
  return declaredLength(values, transferEncoding)
}

/**
 * Answers a request whose body is refused unread: reading stops (`pause`; the client's writes stall once the
 * socket buffers are full), the answer says `Connection: close`, and uWS' idle timeout (10 s) ends the
 * connection unless the client does first. Closing at once instead would make the kernel reset the
 * connection over the unread bytes, and a client still writing its body (undici, most HTTP libraries) would
 * see the reset instead of the answer. A request that itself asks for `Connection: close` is closed by uWS
 * right after the answer.
 */
function refuse(res: uWS.HttpResponse, state: UwsRequest, out: HttpResponse, head: boolean): void {
  if (state.aborted) return
  res.pause()
  send(res, state, { status: out.status, headers: { ...out.headers, connection: 'close' }, body: out.body }, head)
}

/** Answers a request whose body length is ambiguous and closes the connection at once (it cannot be reused). */
function refuseFraming(res: uWS.HttpResponse, state: UwsRequest, out: HttpResponse, head: boolean): void {
  state.closeAfter = true
  send(res, state, out, head)
}

/** Buffered body bytes at once when no budget is given (server/config.ts BODY_MEMORY_MB has the default). */
const DEFAULT_BODY_MEMORY_BYTES = 64 * 1024 * 1024

export interface HttpServerOptions {
  /** the bound on request bodies in flight. @default 64 MiB buffered, SPOOLED_BODIES spooled */
  readonly budget?: BodyBudget
  /** directory of spooled bodies, emptied at start. @default a fresh directory under the OS temp dir */
  readonly spoolDir?: string
}

/** The spool directory, emptied (a crash leaves files behind) and created with mode 0700. */
function prepareSpoolDir(dir: string | undefined): string {
  if (dir === undefined) return fs.mkdtempSync(join(tmpdir(), 'tidewatch-bodies-'))
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/**
 * A request to a route that takes a body: the declared length (413), access from the headers (app.admit),
 * then the body within the budget (buffered or spooled), then the application. Every refusal before the
 * body closes the connection.
 */
function receiveBody(
  res: uWS.HttpResponse,
  request: UwsRequest,
  app: App,
  matched: Match,
  length: number | null,
  head: boolean,
  budget: BodyBudget,
  spoolDir: string
): void {
  const where = { method: request.method, path: request.path }
  const limit = matched.route.maxBodyBytes ?? 0
  watchAbort(res, request)
  if (length !== null && length > limit) return refuse(res, request, app.errorResponse(tooLarge(limit), where), head)
  const refusal = app.admit(request, matched)
  if (refusal) return refuse(res, request, refusal, head)
  const answer = async (body: Buffer | SpooledBody | ApiError): Promise<void> => {
    if (body instanceof ApiError) return refuse(res, request, app.errorResponse(body, where), head)
    if (Buffer.isBuffer(body)) request.body = body
    else request.bodyFile = body
    send(res, request, await app.handle(request, matched), head)
  }
  const failed = (err: unknown): void => answerFailure(res, request, app, err, where, head)
  if (matched.route.spoolBody) {
    if (!budget.startSpool()) return refuse(res, request, app.errorResponse(bodiesBusy(), where), head)
    spoolBody(res, request, limit, budget, spoolDir)
      .then(answer)
      .catch(failed)
      .finally(() => {
        budget.endSpool()
        if (request.bodyFile) removeSpool(request.bodyFile.path)
      })
    return
  }
  const hold: Reservation = { held: 0 }
  if (length !== null) {
    if (!budget.reserve(length)) return refuse(res, request, app.errorResponse(bodiesBusy(), where), head)
    hold.held = length
  }
  readBuffered(res, request, limit, budget, hold)
    .then(answer)
    .catch(failed)
    .finally(() => budget.release(hold.held))
}

export function startHttpServer(
  app: App,
  host: string,
  port: number,
  stream?: StreamService,
  opts: HttpServerOptions = {}
): Promise<HttpServer> {
  const server = uWS.App()
  const transport = stream ? attachStream(server, stream) : null
  const budget = opts.budget ?? new BodyBudget(DEFAULT_BODY_MEMORY_BYTES, SPOOLED_BODIES)
  const spoolDir = prepareSpoolDir(opts.spoolDir)
  server.any('/*', (res, req) => {
    // Only the nine methods uWS 20.30 routes reach this handler, upper-case as sent: it closes the connection
    // on any other (QUERY, or `get`) before JavaScript runs, with no hook to answer (docs/uws-parser-repro.md)
    const method = req.getCaseSensitiveMethod()
    const path = req.getUrl()
    const rawQuery = req.getQuery() ?? ''
    const head = method === 'HEAD'
    const matched = app.match(method, path)
    const routed = matched instanceof ApiError ? null : matched.route
    const limit = routed === null ? 0 : (routed.maxBodyBytes ?? 0)
    const keyedRoute = routed !== null && (routed.access === 'key' || routed.access === 'public')
    // uWS frames a body by the first Content-Length: every one is checked (framing.ts)
    const declared = req.getHeader('content-length')
    const length = declared === '' ? null : framingOf(req)
    const headers = readHeaders(req, limit > 0, keyedRoute)
    // web dashboard: its caching and encoding headers, read only outside /v1 (charCode 118 = 'v')
    if (path.charCodeAt(1) !== 118) {
      for (const name of WEB_REQUEST_HEADERS) {
        const v = req.getHeader(name)
        if (v !== '') headers[name] = v
      }
    }
    const request = new UwsRequest(res, method, path, rawQuery, headers, null)
    if (declared !== '' && !UWS_LENGTH.test(declared)) request.writeThrough = true
    if (length instanceof ApiError) {
      watchAbort(res, request)
      const answer = (): void => refuseFraming(res, request, app.errorResponse(length, { method, path }), head)
      // uWS stops parsing this connection after the handler: answer now (written through)
      if (request.writeThrough) return answer()
      // answered once uWS has parsed what it already holds: a request smuggled behind the ambiguous length
      // then arrives while this one is pending, and uWS closes the connection instead of serving it
      setImmediate(answer)
      return
    }
    if (limit > 0) {
      return receiveBody(res, request, app, matched as Match, length, head, budget, spoolDir)
    }
    const out = app.handle(request, matched)
    if (out instanceof Promise) {
      watchAbort(res, request)
      out.then(
        (o) => send(res, request, o, head),
        (err: unknown) => answerFailure(res, request, app, err, { method, path }, head)
      )
      return
    }
    // uWS' rule: end the response or hook onAborted before the handler returns. A plain body is hooked
    // only when send did not end it (a large body still being written); HEAD (endWithoutBody is no answer
    // to uWS) and streams (sendStream writes before its first await) are hooked before sending
    const early = head || isStreamBody(out.body)
    if (early) watchAbort(res, request)
    if (!send(res, request, out, head, true) && !early) watchAbort(res, request)
  })
  return new Promise((resolve, reject) => {
    // exclusive: without it uWS sets SO_REUSEPORT and a second instance on the same port silently shares
    // (and splits) its connections; with it a port in use fails the listen
    listenExclusive(server, host, port, (token) => {
      if (!token) {
        reject(
          new ListenError(
            `could not listen on ${host}:${port}: the port is in use (another Tidewatch?) or the address is not allowed; set PORT/HOST`
          )
        )
        return
      }
      resolve({
        port: uWS.us_socket_local_port(token),
        bodies: () => budget.counters(),
        close: () => {
          transport?.close()
          uWS.us_listen_socket_close(token)
          if (opts.spoolDir === undefined) fs.rmSync(spoolDir, { recursive: true, force: true })
        }
      })
    })
  })
}
