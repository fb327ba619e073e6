/**
 * The span patterns of the API (engine/history/span-grammar.ts) admit exactly the texts their parsers take:
 * counts 0 to 100001 with every unit, written plainly (every count near the edges and the whole hours), plus leading zeros, spaces and other units
 * (which the patterns refuse: the schema asks for the plain spelling).
 */
import { describe, expect, it } from 'vitest'
import { parseAlignedInterval } from '../../engine/history/aligned.js'
import { parseFundingInterval } from '../../engine/history/funding-window.js'
import { parseInterval } from '../../engine/history/snapshot-grid.js'
import {
  MONTHS_SPAN_PATTERN,
  SPAN_PATTERN,
  WHOLE_HOURS_MONTHS_PATTERN,
  WHOLE_HOURS_PATTERN
} from '../../engine/history/span-grammar.js'
import { parseSpan } from '../../engine/history/span.js'

const takes = (parse: (text: string, param: string) => unknown, text: string): boolean => {
  try {
    parse(text, 'p')
    return true
  } catch {
    return false
  }
}

const GRAMMARS: [string, string, (text: string, param: string) => unknown][] = [
  ['SPAN_PATTERN', SPAN_PATTERN, parseSpan],
  ['MONTHS_SPAN_PATTERN', MONTHS_SPAN_PATTERN, parseAlignedInterval],
  ['WHOLE_HOURS_PATTERN', WHOLE_HOURS_PATTERN, parseFundingInterval],
  ['WHOLE_HOURS_MONTHS_PATTERN', WHOLE_HOURS_MONTHS_PATTERN, parseInterval]
]

/** Every count to 2000 and near the limit, every multiple of 60 and its neighbours, and a stride between. */
const COUNTS = [
  ...new Set([
    ...Array.from({ length: 2_001 }, (_, i) => i),
    ...Array.from({ length: 102 }, (_, i) => 99_900 + i),
    ...Array.from({ length: 1_667 }, (_, i) => i * 60).flatMap((n) => [n - 10, n - 1, n, n + 1, n + 10]),
    ...Array.from({ length: 1_031 }, (_, i) => i * 97)
  ])
].filter((n) => n >= 0)

describe('span patterns', () => {
  it.each(GRAMMARS)('%s admits exactly the plain spans its parser takes', (_, pattern, parse) => {
    const re = new RegExp(pattern, 'u')
    const wrong: string[] = []
    for (const unit of ['m', 'h', 'd', 'w', 'M', 'y']) {
      for (const n of COUNTS) {
        const text = `${n}${unit}`
        if (re.test(text) !== takes(parse, text)) wrong.push(text)
      }
    }
    expect(wrong.slice(0, 20)).toEqual([])
  })

  it.each(GRAMMARS)('%s refuses other spellings', (_, pattern) => {
    const re = new RegExp(pattern, 'u')
    for (const text of ['', '01h', '060m', ' 1h', '1h ', '1H', '1s', '1', 'h', '1.5h', '+1h', '1e3m', '１h']) {
      expect(re.test(text), text).toBe(false)
    }
  })
})
