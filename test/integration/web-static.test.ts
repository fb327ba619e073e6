/**
 * The dashboard's static serving (server/web) over a real uWS socket: hashed assets cached a year as
 * immutable, index.html revalidated (no-cache, ETag, 304), the build's precompressed brotli or gzip
 * chosen by Accept-Encoding (bytes checked by decompressing them), the SPA fallback for app routes (the
 * list agrees with web/src/main.tsx) and the API's JSON 404 for anything else, the security headers (CSP without inline script, frame-ancestors 'none',
 * connect-src to this host's ws/wss, nosniff, Referrer-Policy), and /v1 left to the API (JSON 404). The
 * last part checks the real server serves the built dashboard (`npm run build` writes dist/web).
 */
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { projectRoot } from '../../engine/paths.js'
import { App } from '../../server/app.js'
import { startHttpServer, type HttpServer } from '../../server/http/uws-server.js'
import { json } from '../../server/http/types.js'
import { loadStaticFiles } from '../../server/web/static-files.js'
import { APP_ROUTES, webRoute } from '../../server/web/web-route.js'
import { webDistDir } from '../../server/web/wiring.js'
import { sharedServer } from '../helpers/shared-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

interface Raw {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/** A raw request: node:http does not decompress, so the encoded bytes are seen as sent. */
function raw(base: string, p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${p}`, { method, headers }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (d: Buffer) => parts.push(d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }))
    })
    req.on('error', reject)
    req.end()
  })
}

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-AbCd1234.js"></script></head><body></body></html>'
const SCRIPT = `console.log(${JSON.stringify('tidewatch '.repeat(200))})\n`

describe('static serving of the dashboard', () => {
  const tmp = tmpDir('tw-web-')
  let server: HttpServer
  let base: string

  beforeAll(async () => {
    fs.mkdirSync(path.join(tmp.dir, 'assets'))
    fs.writeFileSync(path.join(tmp.dir, 'index.html'), INDEX)
    fs.writeFileSync(path.join(tmp.dir, 'index.html.gz'), zlib.gzipSync(INDEX))
    fs.writeFileSync(path.join(tmp.dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    const js = path.join(tmp.dir, 'assets', 'index-AbCd1234.js')
    fs.writeFileSync(js, SCRIPT)
    fs.writeFileSync(`${js}.gz`, zlib.gzipSync(SCRIPT))
    fs.writeFileSync(`${js}.br`, zlib.brotliCompressSync(SCRIPT))
    const files = loadStaticFiles(tmp.dir)!
    const health = {
      method: 'GET' as const,
      path: '/v1/health',
      access: 'none' as const,
      summary: 'health',
      tags: ['test'],
      handler: () => json(200, { status: 'ok' })
    }
    const app = new App([health], silentLogger(), null, { web: webRoute(files) })
    server = await startHttpServer(app, '127.0.0.1', 0)
    base = `http://127.0.0.1:${server.port}`
  })

  afterAll(() => {
    server?.close()
    tmp.cleanup()
  })

  it('serves a hashed asset as immutable for a year, brotli when accepted, gzip else, identity without either', async () => {
    const br = await raw(base, '/assets/index-AbCd1234.js', { 'accept-encoding': 'gzip, deflate, br' })
    expect(br.status).toBe(200)
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers['vary']).toBe('accept-encoding')
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(SCRIPT)
    expect(br.body.length).toBeLessThan(Buffer.byteLength(SCRIPT))

    const gz = await raw(base, '/assets/index-AbCd1234.js', { 'accept-encoding': 'gzip' })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(zlib.gunzipSync(gz.body).toString()).toBe(SCRIPT)

    const noBr = await raw(base, '/assets/index-AbCd1234.js', { 'accept-encoding': 'br;q=0, gzip;q=0.5' })
    expect(noBr.headers['content-encoding']).toBe('gzip')

    const plain = await raw(base, '/assets/index-AbCd1234.js')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe(SCRIPT)
  })

  it('serves index.html with no-cache and an ETag, and answers 304 to a matching If-None-Match', async () => {
    const first = await raw(base, '/', { 'accept-encoding': 'gzip' })
    expect(first.status).toBe(200)
    expect(first.headers['cache-control']).toBe('no-cache')
    expect(first.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(zlib.gunzipSync(first.body).toString()).toBe(INDEX)
    const etag = first.headers['etag']!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    const again = await raw(base, '/', { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    const changed = await raw(base, '/', { 'if-none-match': '"other"' })
    expect(changed.status).toBe(200)
  })

  it('answers index.html for app routes (SPA fallback, query kept for the page); other paths get the API 404', async () => {
    for (const p of ['/screener', '/signup?invite=abc123', '/keys', '/']) {
      const r = await raw(base, p)
      expect(r.status, p).toBe(200)
      expect(r.body.toString(), p).toBe(INDEX)
      expect(r.headers['cache-control'], p).toBe('no-cache')
    }
    for (const p of ['/assets/index-zzzz9999.js', '/v2/whatever', '/screener/extra']) {
      const missing = await raw(base, p)
      expect(missing.status, p).toBe(404)
      expect(missing.headers['content-type'], p).toBe('application/json')
      expect(JSON.parse(missing.body.toString()).error.code, p).toBe('not_found')
    }
    const unhashed = await raw(base, '/favicon.svg')
    expect(unhashed.status).toBe(200)
    expect(unhashed.headers['content-type']).toBe('image/svg+xml')
    expect(unhashed.headers['cache-control']).toBe('no-cache')
  })

  it('sends the security headers: strict CSP with ws/wss to this host, nosniff, referrer policy, no framing', async () => {
    const r = await raw(base, '/screener')
    const csp = String(r.headers['content-security-policy'])
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/)
        return [name!, values] as const
      })
    )
    expect(directives.get('default-src')).toEqual(["'self'"])
    expect(directives.get('script-src')).toEqual(["'self'"])
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    expect(directives.get('frame-ancestors')).toEqual(["'none'"])
    expect(directives.get('object-src')).toEqual(["'none'"])
    const host = `127.0.0.1:${server.port}`
    expect(directives.get('connect-src')).toEqual(["'self'", `ws://${host}`, `wss://${host}`])
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect(r.headers['referrer-policy']).toBe('same-origin')
    expect(r.headers['x-frame-options']).toBe('DENY')
    // a Host that is not a plain host[:port] never reaches the header
    const odd = await raw(base, '/', { host: "evil.example; script-src 'unsafe-inline'" })
    expect(String(odd.headers['content-security-policy'])).toMatch(/connect-src 'self'$/)
  })

  it('leaves /v1 to the API: unknown API paths are JSON 404s, non-GET methods outside /v1 are not served', async () => {
    const api = await raw(base, '/v1/nope')
    expect(api.status).toBe(404)
    expect(api.headers['content-type']).toBe('application/json')
    expect(JSON.parse(api.body.toString()).error.code).toBe('not_found')
    expect((await raw(base, '/v1/health')).status).toBe(200)
    const post = await raw(base, '/screener', {}, 'POST')
    expect(post.status).toBe(404)
    expect(post.headers['content-type']).toBe('application/json')
    const head = await raw(base, '/assets/index-AbCd1234.js', {}, 'HEAD')
    expect(head.status).toBe(200)
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(SCRIPT))
  })
})

describe('the app routes', () => {
  it('are the pages web/src/main.tsx renders, no more and no fewer', () => {
    const main = fs.readFileSync(path.join(projectRoot(), 'web', 'src', 'main.tsx'), 'utf8')
    const cases = new Set([...main.matchAll(/case '(\/[a-z]*)':/g)].map((m) => m[1]!))
    expect(cases).toEqual(new Set(APP_ROUTES))
  })
})

describe('the real server serves the built dashboard (npm run build)', () => {
  const s = sharedServer()

  it('answers / with the built index.html, whose script and stylesheet are served brotli-compressed', async () => {
    expect(fs.existsSync(path.join(webDistDir(), 'index.html')), 'run npm run build first').toBe(true)
    const index = await raw(s.base, '/')
    expect(index.status).toBe(200)
    const html = index.body.toString()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/) // no inline script (the CSP forbids it)
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!)
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true)
    for (const a of assets) {
      const r = await raw(s.base, a, { 'accept-encoding': 'br' })
      expect(r.status, a).toBe(200)
      expect(r.headers['content-encoding'], a).toBe('br')
      expect(r.headers['cache-control'], a).toContain('immutable')
      expect(zlib.brotliDecompressSync(r.body).equals(fs.readFileSync(path.join(webDistDir(), a))), a).toBe(true)
    }
    const health = await fetch(`${s.base}/v1/health`)
    expect(health.status).toBe(200)
  })
})
