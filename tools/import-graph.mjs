/**
 * @module
 * The module graph of the source tree, read from the files' import and export statements (no compiler):
 * the edges between local files, whether an edge exists at run time (`import type` / `export type` are
 * erased; with `verbatimModuleSyntax` an `import { type X }` is not), the import circles (strongly
 * connected components of more than one file, or a file importing itself) and the layer rules of
 * docs/architecture.md. Dynamic imports whose specifier is a literal count as run-time edges; a computed
 * specifier (the venue registry's `./${id}/venue.js`) is not an edge.
 *
 * `node tools/import-graph.mjs` prints the circles and the layer breaches and exits 1 when there is one;
 * test/unit/import-graph.test.ts holds the tree to none.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The source folders (tsconfig.json and web/tsconfig.json), tests excluded. */
export const SOURCE_ROOTS = ['catalog', 'engine', 'ingest', 'server', 'bench', 'cli', 'schemas', 'examples', 'web/src']

/** Layer rules: files under `from` import nothing under any of `notInto` (docs/architecture.md, "Layers"). */
export const LAYER_RULES = [
  { from: 'catalog/', notInto: ['engine/', 'ingest/', 'server/', 'bench/', 'cli/', 'schemas/', 'web/'] },
  { from: 'engine/', notInto: ['ingest/', 'server/', 'bench/', 'cli/', 'web/'] },
  { from: 'ingest/', notInto: ['server/', 'bench/', 'cli/', 'web/'] }
]

const CODE = /\.(?:ts|tsx|mts)$/
const DECLARATION = /\.d\.(?:ts|mts)$/

function listFiles(root, dir) {
  const out = []
  const abs = join(root, dir)
  if (!existsSync(abs)) return out
  for (const name of readdirSync(abs)) {
    if (name === 'node_modules' || name === 'dist') continue
    const rel = `${dir}/${name}`
    if (statSync(join(root, rel)).isDirectory()) out.push(...listFiles(root, rel))
    else if (CODE.test(name) && !DECLARATION.test(name)) out.push(rel)
  }
  return out
}

/** Block and line comments blanked (strings kept), so commented-out imports are not read. */
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/[^\n]*/g, (m, lead) => (lead ?? '') + ' ')
}

/**
 * The relative specifiers a file names: `import ... from`, `export ... from`, side-effect `import '...'`
 * and `import('...')`; `types` for the statements erased at run time.
 */
export function importsOf(text) {
  const src = stripComments(text)
  const found = []
  const statement = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[\w*$\s{},]*?\s+from\s+)?['"]([^'"]+)['"]/g
  for (let m = statement.exec(src); m !== null; m = statement.exec(src)) {
    found.push({ specifier: m[3], typeOnly: m[2] !== undefined })
  }
  const dynamic = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g
  for (let m = dynamic.exec(src); m !== null; m = dynamic.exec(src)) found.push({ specifier: m[1], typeOnly: false })
  return found.filter((f) => f.specifier.startsWith('.'))
}

/** The file a relative specifier names (`./x.js` → `x.ts`, `x.tsx`, `x/index.ts`), or null. */
function resolveSpecifier(root, fromFile, specifier) {
  const base = resolve(root, dirname(fromFile), specifier)
  const stem = base.replace(/\.(?:m?js|jsx)$/, '')
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(stem, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split(sep).join('/')
  }
  return null
}

/** Every local edge of the tree at `root`: `{ from, to, typeOnly }`, paths relative to `root`. */
export function importGraph(root) {
  const files = SOURCE_ROOTS.flatMap((dir) => listFiles(root, dir))
  const edges = []
  for (const file of files) {
    for (const { specifier, typeOnly } of importsOf(readFileSync(join(root, file), 'utf8'))) {
      const to = resolveSpecifier(root, file, specifier)
      if (to !== null) edges.push({ from: file, to, typeOnly })
    }
  }
  return { files, edges }
}

/** The import circles of `edges`: each a list of files, sorted, circles sorted (Tarjan's components). */
export function importCircles(files, edges) {
  const next = new Map(files.map((f) => [f, []]))
  for (const e of edges) next.get(e.from)?.push(e.to)
  const index = new Map()
  const low = new Map()
  const onStack = new Set()
  const stack = []
  const circles = []
  let counter = 0
  // iterative Tarjan: the tree is deep enough that recursion is a risk on small stacks
  for (const start of files) {
    if (index.has(start)) continue
    const work = [{ node: start, i: 0 }]
    index.set(start, counter)
    low.set(start, counter++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const top = work[work.length - 1]
      const targets = next.get(top.node) ?? []
      if (top.i < targets.length) {
        const to = targets[top.i++]
        if (!index.has(to)) {
          index.set(to, counter)
          low.set(to, counter++)
          stack.push(to)
          onStack.add(to)
          work.push({ node: to, i: 0 })
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node), index.get(to)))
        continue
      }
      work.pop()
      if (work.length > 0) {
        const parent = work[work.length - 1].node
        low.set(parent, Math.min(low.get(parent), low.get(top.node)))
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component = []
        let member
        do {
          member = stack.pop()
          onStack.delete(member)
          component.push(member)
        } while (member !== top.node)
        const selfLoop = component.length === 1 && targets.includes(top.node)
        if (component.length > 1 || selfLoop) circles.push(component.sort())
      }
    }
  }
  return circles.sort((a, b) => a[0].localeCompare(b[0]))
}

/** The edges that break a layer rule, as `from -> to`. */
export function layerBreaches(edges) {
  return edges
    .filter((e) => LAYER_RULES.some((r) => e.from.startsWith(r.from) && r.notInto.some((p) => e.to.startsWith(p))))
    .map((e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type only)' : ''}`)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
  const { files, edges } = importGraph(root)
  const all = importCircles(files, edges)
  const runtime = importCircles(
    files,
    edges.filter((e) => !e.typeOnly)
  )
  const breaches = layerBreaches(edges)
  console.log(
    `${files.length} files, ${edges.length} local imports (${edges.filter((e) => e.typeOnly).length} type only)`
  )
  console.log(`import circles: ${all.length} (at run time: ${runtime.length})`)
  for (const c of all) console.log(`  ${c.join(' <-> ')}`)
  console.log(`layer breaches: ${breaches.length}`)
  for (const b of breaches) console.log(`  ${b}`)
  process.exitCode = all.length + breaches.length > 0 ? 1 : 0
}
