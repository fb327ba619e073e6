/**
 * @module
 * Serves the built dashboard (dist/web) at every GET or HEAD path outside `/v1` (server/app.ts asks
 * `servesPath` after its router found nothing). Rules (docs/dashboard.md):
 * - a file of the build answers with its bytes; Vite's hashed assets (/assets/*-<hash>.*) are cached for a
 *   year as `immutable`, everything else (index.html above all) is `no-cache` (revalidated by ETag, 304);
 * - the body is the build's precompressed brotli or gzip sibling when Accept-Encoding allows it
 *   (`vary: accept-encoding`), identity otherwise;
 * - an app route (APP_ROUTES: `/screener`, `/signup?invite=…`) answers index.html (SPA fallback); any other
 *   path outside the build is not the dashboard's, so the API's JSON 404 answers it;
 * - every answer carries the security headers (server/web/security-headers.ts).
 */
import type { HttpResponse, Route, RouteRequest } from '../http/types.js'
import type { StaticFile } from './static-files.js'
import { contentSecurityPolicy, SECURITY_HEADERS } from './security-headers.js'

/** A year: hashed file names change with their content, so a cached copy never goes stale. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
/** index.html and unhashed files: always revalidated, so a new build is seen on the next load. */
const REVALIDATE = 'no-cache'

/** The request headers this route reads (the adapter copies them for paths outside /v1). */
export const WEB_REQUEST_HEADERS: readonly string[] = ['accept-encoding', 'if-none-match', 'host']

/**
 * The single-page app's routes (web/src/main.tsx `Route`; test/integration/web-static.test.ts checks the two
 * lists agree): each answers index.html, and the app renders the page.
 */
export const APP_ROUTES: ReadonlySet<string> = new Set([
  '/',
  '/signup',
  '/login',
  '/account',
  '/keys',
  '/usage',
  '/webhooks',
  '/candles',
  '/options',
  '/funding',
  '/whales',
  '/screener',
  '/confirm'
])

/** Whether `path` may be the dashboard's: a GET or HEAD outside the API. */
export function servesPath(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false
  return !(path === '/v1' || path.startsWith('/v1/'))
}

/** The route the application falls back to outside /v1, with the paths it serves. */
export interface WebRoute extends Route {
  /** a file of the build or an app route (anything else is left to the API's 404) */
  serves(method: string, path: string): boolean
}

type Encoding = 'br' | 'gzip' | 'identity'

/** The best encoding Accept-Encoding allows among what the build wrote (brotli, then gzip). */
export function chooseEncoding(accept: string, file: StaticFile): Encoding {
  const allowed = new Set<string>()
  for (const part of accept.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue
    if (name) allowed.add(name.trim())
  }
  if (file.br && (allowed.has('br') || allowed.has('*'))) return 'br'
  if (file.gzip && (allowed.has('gzip') || allowed.has('*'))) return 'gzip'
  return 'identity'
}

function notFound(host: string): HttpResponse {
  return {
    status: 404,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': REVALIDATE,
      'content-security-policy': contentSecurityPolicy(host),
      ...SECURITY_HEADERS
    },
    body: 'not found\n'
  }
}

/** Answers one request from the loaded files. */
export function serveStatic(files: ReadonlyMap<string, StaticFile>, req: RouteRequest): HttpResponse {
  const host = req.headers['host'] ?? ''
  let file = files.get(req.path)
  if (!file && APP_ROUTES.has(req.path)) file = files.get('/index.html')
  if (!file) return notFound(host)
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': file.hashed ? IMMUTABLE : REVALIDATE,
    etag: file.etag,
    vary: 'accept-encoding',
    'content-security-policy': contentSecurityPolicy(host),
    ...SECURITY_HEADERS
  }
  const inm = req.headers['if-none-match']
  if (inm !== undefined && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) {
    return { status: 304, headers, body: '' }
  }
  const encoding = chooseEncoding(req.headers['accept-encoding'] ?? '', file)
  if (encoding === 'identity') return { status: 200, headers, body: file.identity }
  headers['content-encoding'] = encoding
  return { status: 200, headers, body: encoding === 'br' ? file.br! : file.gzip! }
}

/** The route the application falls back to outside /v1 (not listed in the OpenAPI document). */
export function webRoute(files: ReadonlyMap<string, StaticFile>): WebRoute {
  return {
    serves: (method, path) => servesPath(method, path) && (files.has(path) || APP_ROUTES.has(path)),
    method: 'GET',
    path: '/*',
    access: 'none',
    data: false,
    summary: 'The web dashboard (static files, SPA fallback)',
    tags: ['web'],
    handler: (req) => serveStatic(files, req)
  }
}
