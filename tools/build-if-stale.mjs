#!/usr/bin/env node
// `npm start` runs this before the server: it compiles TypeScript only when a source file, tsconfig.json
// or package.json is newer than the last build (dist/.build-stamp), so a restart costs a few ms of stat
// calls instead of a 3 s compile. The web dashboard (web/) is rebuilt likewise with Vite when one of its
// files, or one of the typed client's it bundles (clients/ts), is newer than the last build. Plain
// JavaScript on purpose: it must run before anything is built.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** the folders tsconfig.json compiles (its "include") */
const SOURCE_DIRS = ['engine', 'ingest', 'server', 'bench', 'cli', 'schemas', 'examples']
const STAMP = path.join(root, 'dist', '.build-stamp')

/** the dashboard's sources (web/): every file type Vite reads */
const WEB_SOURCE = /\.(?:ts|tsx|css|html|json|svg)$/

/** newest mtime (ms) of the files under `dir` whose name matches `pattern` (default: .ts), or 0 */
function newest(dir, pattern = /\.ts$/) {
  let max = 0
  let entries
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const e of entries) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) max = e.name === 'node_modules' ? max : Math.max(max, newest(p, pattern))
    else if (pattern.test(e.name)) max = Math.max(max, fs.statSync(p).mtimeMs)
  }
  return max
}

let built = 0
try {
  built = fs.statSync(STAMP).mtimeMs
} catch {
  built = 0
}
let sources = Math.max(...['tsconfig.json', 'package.json'].map((f) => fs.statSync(path.join(root, f)).mtimeMs))
for (const d of SOURCE_DIRS) sources = Math.max(sources, newest(path.join(root, d)))
// the dashboard bundles the typed client (clients/ts) too
const webSources = Math.max(newest(path.join(root, 'web'), WEB_SOURCE), newest(path.join(root, 'clients', 'ts')))
const webBuilt = fs.existsSync(path.join(root, 'dist', 'web', 'index.html'))

if (built === 0 || sources > built || webSources > built || !webBuilt) {
  process.stderr.write('tidewatch: compiling TypeScript (sources changed since the last build)\n')
  const started = Date.now()
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
    cwd: root,
    stdio: 'inherit'
  })
  // the dashboard: typechecked, then bundled by Vite into dist/web (as `npm run build` does)
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'web/tsconfig.json'],
    {
      cwd: root,
      stdio: 'inherit'
    }
  )
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts'],
    {
      cwd: root,
      stdio: 'inherit'
    }
  )
  fs.mkdirSync(path.dirname(STAMP), { recursive: true })
  fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`)
  process.stderr.write(`tidewatch: compiled in ${Date.now() - started} ms\n`)
}
