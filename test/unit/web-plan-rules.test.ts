/**
 * The dashboard's rules of what a caller may open (web/src/lib/plan-rules.ts): the public features are
 * exactly those of the routes a caller without a key may call, every page of the navigation says what it
 * needs, and a visitor, a free account, a trader and a development key of unknown plan are each shown what
 * their calls would be allowed (a page that would only be refused is not opened).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { FEATURES } from '../../catalog/plans.js'
import { projectRoot } from '../../engine/paths.js'
import {
  callerAllows,
  cheapestPlanWith,
  PAGE_NEEDS,
  PUBLIC_FEATURES,
  refusalFor,
  type Caller
} from '../../web/src/lib/plan-rules.js'

const VISITOR: Caller = { signedIn: false, devKey: false, plan: null }
const FREE: Caller = { signedIn: true, devKey: false, plan: 'free' }
const TRADER: Caller = { signedIn: true, devKey: false, plan: 'trader' }
const DEV_KEY_UNKNOWN: Caller = { signedIn: false, devKey: true, plan: null }

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : []
  })
}

describe('web plan rules', () => {
  it("the public features are the features of the routes with access 'public'", () => {
    const found = new Set<string>()
    for (const file of sources(path.join(projectRoot(), 'server', 'routes'))) {
      const text = fs.readFileSync(file, 'utf8')
      for (const m of text.matchAll(/access: 'public',\s*feature: '(\w+)'/g)) found.add(m[1]!)
      // a public route declared in another shape would escape the pattern above
      const publics = text.match(/access: 'public'/g)?.length ?? 0
      const matched = [...text.matchAll(/access: 'public',\s*feature: '(\w+)'/g)].length
      expect(matched, `${file}: every public route names its feature right after its access`).toBe(publics)
    }
    expect(found).toEqual(new Set(PUBLIC_FEATURES))
  })

  it('every page of the navigation (web/src/main.tsx) says what it needs, in features the catalog declares', () => {
    const main = fs.readFileSync(path.join(projectRoot(), 'web', 'src', 'main.tsx'), 'utf8')
    const linked = [...main.matchAll(/\['(\/[a-z]+)', '[^']+'\]/g)].map((m) => m[1]!)
    expect(linked.length).toBeGreaterThan(5)
    for (const page of linked.filter((p) => p !== '/account')) expect(PAGE_NEEDS, page).toHaveProperty([page])
    for (const needs of Object.values(PAGE_NEEDS)) {
      if (needs.feature) expect(FEATURES).toContain(needs.feature)
    }
  })

  it('a visitor opens the public pages only; the others need an account', () => {
    expect(refusalFor(VISITOR, '/options')).toBeNull()
    expect(refusalFor(VISITOR, '/whales')).toBeNull()
    for (const page of ['/candles', '/funding', '/screener', '/confirm', '/keys', '/usage', '/webhooks']) {
      expect(refusalFor(VISITOR, page), page).toBe('signed-out')
    }
    expect(callerAllows(VISITOR, 'stream')).toBe(false)
  })

  it('a free account opens what its plan includes; the screener, webhooks and the stream are left out', () => {
    for (const page of ['/candles', '/options', '/funding', '/whales', '/confirm', '/keys', '/usage']) {
      expect(refusalFor(FREE, page), page).toBeNull()
    }
    expect(refusalFor(FREE, '/screener')).toBe('plan')
    expect(refusalFor(FREE, '/webhooks')).toBe('plan')
    expect(callerAllows(FREE, 'stream')).toBe(false)
    expect(cheapestPlanWith('screener')).toBe('trader')
    expect(cheapestPlanWith('webhooks')).toBe('pro')
  })

  it('a trader opens the screener and the stream, not webhooks', () => {
    expect(refusalFor(TRADER, '/screener')).toBeNull()
    expect(callerAllows(TRADER, 'stream')).toBe(true)
    expect(refusalFor(TRADER, '/webhooks')).toBe('plan')
  })

  it('a development key of unknown plan may try every keyed page, not the account pages (a session)', () => {
    expect(refusalFor(DEV_KEY_UNKNOWN, '/screener')).toBeNull()
    expect(refusalFor(DEV_KEY_UNKNOWN, '/webhooks')).toBeNull()
    expect(refusalFor(DEV_KEY_UNKNOWN, '/keys')).toBe('signed-out')
    expect(refusalFor({ ...DEV_KEY_UNKNOWN, plan: 'free' }, '/screener')).toBe('plan')
  })
})
