/**
 * The module graph holds the layering of docs/architecture.md ("Layers", "The service as modules"): no
 * import circle among the source files, `engine/` imports neither `ingest/` nor `server/`, `ingest/` does not
 * import `server/`, and `catalog/` imports no other layer. The graph is read by tools/import-graph.mjs, whose
 * reading and circle search are checked here on small inputs first.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { importCircles, importGraph, importsOf, layerBreaches } from '../../tools/import-graph.mjs'

const ROOT = path.join(import.meta.dirname, '..', '..')

describe('import graph reader', () => {
  it('reads static, re-exported, side-effect and literal dynamic imports; marks type-only ones; skips comments', () => {
    const text = [
      "import { a } from './a.js'",
      "import type { B } from './b.js'",
      "import {\n  c,\n  type C\n} from '../c.js'",
      "export { d } from './d.js'",
      "export type { E } from './e.js'",
      "import './f.js'",
      "const g = await import('./g.js')",
      'const h = await import(`./${id}/h.js`)',
      "// import { x } from './commented.js'",
      '/* import { y } from "./block.js" */',
      "import { z } from 'viem'"
    ].join('\n')
    expect(importsOf(text)).toEqual([
      { specifier: './a.js', typeOnly: false },
      { specifier: './b.js', typeOnly: true },
      { specifier: '../c.js', typeOnly: false },
      { specifier: './d.js', typeOnly: false },
      { specifier: './e.js', typeOnly: true },
      { specifier: './f.js', typeOnly: false },
      { specifier: './g.js', typeOnly: false }
    ])
  })

  it('finds a circle of three, a file importing itself, and none in a chain', () => {
    const edge = (from: string, to: string) => ({ from, to, typeOnly: false })
    const files = ['a', 'b', 'c', 'd', 'e', 'f']
    expect(
      importCircles(files, [edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('d', 'd'), edge('e', 'f')])
    ).toEqual([['a', 'b', 'c'], ['d']])
    expect(importCircles(files, [edge('a', 'b'), edge('b', 'c'), edge('e', 'f')])).toEqual([])
  })

  it('names an engine file importing ingest/ or server/ as a breach', () => {
    expect(
      layerBreaches([
        { from: 'engine/config/x.ts', to: 'ingest/sources/y.ts', typeOnly: true },
        { from: 'server/start.ts', to: 'engine/store/store.ts', typeOnly: false }
      ])
    ).toEqual(['engine/config/x.ts -> ingest/sources/y.ts (type only)'])
  })
})

describe('the source tree', () => {
  const { files, edges } = importGraph(ROOT)

  it('is read whole (every layer has files and imports)', () => {
    for (const dir of ['catalog/', 'engine/', 'ingest/', 'server/', 'bench/', 'web/src/']) {
      expect(
        files.some((f) => f.startsWith(dir)),
        dir
      ).toBe(true)
      expect(
        edges.some((e) => e.from.startsWith(dir)),
        dir
      ).toBe(true)
    }
  })

  it('has no import circle, type-only imports included', () => {
    expect(importCircles(files, edges)).toEqual([])
  })

  it('keeps the layers: engine/ imports neither ingest/ nor server/, ingest/ not server/, catalog/ nothing', () => {
    expect(layerBreaches(edges)).toEqual([])
  })
})
