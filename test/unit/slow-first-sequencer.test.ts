import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { SLOW_FILES, slowFirst } from '../setup/slow-first-sequencer.js'

describe('slow-first test order', () => {
  it('starts the listed files first, in the list order, and keeps the order of the rest', () => {
    const files = ['a', 'slow2', 'b', 'slow1', 'c']
    expect(slowFirst(files, ['slow1', 'slow2', 'gone'], (f) => f)).toEqual(['slow1', 'slow2', 'a', 'b', 'c'])
    expect(slowFirst(files, [], (f) => f)).toEqual(files)
  })

  it('lists only test files that exist, once each (a renamed file would silently start late)', () => {
    for (const f of SLOW_FILES) expect(fs.existsSync(path.join(projectRoot(), f)), f).toBe(true)
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length)
  })
})
