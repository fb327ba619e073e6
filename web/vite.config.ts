/**
 * Vite build of the dashboard (docs/dashboard.md): web/ -> dist/web, hashed assets under /assets/, no
 * inline script (the strict Content-Security-Policy of server/web forbids it: no modulepreload polyfill),
 * then every text asset precompressed beside itself as .br (quality 11) and .gz (level 9), which the
 * server picks by Accept-Encoding. `dist/web/build-report.json` records each file's raw and gzip bytes
 * (the 200 KB gzip budget of first-load JavaScript is checked by test/browser).
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'

const OUT = path.resolve(import.meta.dirname, '..', 'dist', 'web')
/** Files worth compressing (images and fonts already are). */
const COMPRESSIBLE = /\.(?:html|js|css|json|svg|txt|map)$/

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
}

function precompress(): Plugin {
  return {
    name: 'tidewatch-precompress',
    apply: 'build',
    closeBundle() {
      const report: Record<string, { bytes: number; gzip: number; brotli: number }> = {}
      for (const file of walk(OUT)) {
        if (!COMPRESSIBLE.test(file) || file.endsWith('build-report.json')) continue
        const raw = fs.readFileSync(file)
        const gz = zlib.gzipSync(raw, { level: 9 })
        const br = zlib.brotliCompressSync(raw, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length }
        })
        fs.writeFileSync(`${file}.gz`, gz)
        fs.writeFileSync(`${file}.br`, br)
        report[path.relative(OUT, file)] = { bytes: raw.length, gzip: gz.length, brotli: br.length }
      }
      fs.writeFileSync(path.join(OUT, 'build-report.json'), JSON.stringify(report, null, 1))
    }
  }
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: OUT,
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false
  },
  plugins: [precompress()]
})
