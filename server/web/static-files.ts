/**
 * @module
 * The built dashboard (dist/web, `npm run build`) read into memory once at start: each file with its
 * identity bytes, the precompressed `.br` / `.gz` siblings the build wrote (docs/dashboard.md), a strong
 * ETag (SHA-256 of the identity bytes) and its content type. The whole bundle is a few hundred KB, so
 * serving never touches the disk. Invariant: a key is a URL path (`/assets/index-Ab12.js`), never `..`.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** Content types of the files Vite emits; anything else is served as bytes. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json'
}

export interface StaticFile {
  /** URL path, e.g. /assets/index-Ab12.js */
  readonly path: string
  readonly type: string
  readonly etag: string
  readonly identity: Buffer
  /** the build's brotli sibling (`<file>.br`), when it wrote one */
  readonly br: Buffer | null
  /** the build's gzip sibling (`<file>.gz`), when it wrote one */
  readonly gzip: Buffer | null
  /** Vite's content-hashed output (under /assets/): cached for a year, immutable */
  readonly hashed: boolean
}

/** Files under `dir`, relative, with '/' separators. */
function walk(dir: string, rel = ''): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) out.push(...walk(dir, r))
    else if (e.isFile()) out.push(r)
  }
  return out
}

function readIf(file: string): Buffer | null {
  return fs.existsSync(file) ? fs.readFileSync(file) : null
}

/** Vite names hashed output `<name>-<8+ chars of base64url hash>.<ext>` under assets/. */
const HASHED = /^assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/

/**
 * Every file of the built dashboard by URL path; null when `dir` holds no index.html (not built: the
 * server then serves only the API).
 */
export function loadStaticFiles(dir: string): Map<string, StaticFile> | null {
  if (!fs.existsSync(path.join(dir, 'index.html'))) return null
  const files = new Map<string, StaticFile>()
  for (const rel of walk(dir)) {
    if (rel.endsWith('.br') || rel.endsWith('.gz')) continue
    const full = path.join(dir, rel)
    const identity = fs.readFileSync(full)
    const etag = `"${crypto.createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`
    files.set(`/${rel}`, {
      path: `/${rel}`,
      type: TYPES[path.extname(rel).toLowerCase()] ?? 'application/octet-stream',
      etag,
      identity,
      br: readIf(`${full}.br`),
      gzip: readIf(`${full}.gz`),
      hashed: HASHED.test(rel)
    })
  }
  return files
}
