/**
 * The pin of the candle export (engine/export/pinned-parts.ts, `choosePin`): which merged parts are read
 * without FINAL and from which bucket on every row goes through FINAL, case by case.
 */
import { describe, expect, it } from 'vitest'
import { choosePin, NO_PIN, type PartInfo } from '../../engine/export/pinned-parts.js'

const TO = 2_000_000_000
/** a part; its buckets end 100 s after `minS` unless `maxS` says otherwise */
const part = (
  partition: string,
  name: string,
  level: number,
  rows: number,
  minS: number,
  maxS = minS + 100
): PartInfo => ({
  partition,
  name,
  level,
  rows,
  minS,
  maxS
})

describe('choosePin', () => {
  it('months that are one merged part each: both pinned, nothing left for FINAL (cut = the end)', () => {
    const pin = choosePin([part('202610', 'a_1_9_2', 2, 100, 1000), part('202611', 'b_1_9_3', 3, 100, 5000)], TO)
    expect(pin).toEqual({ parts: ['a_1_9_2', 'b_1_9_3'], cutS: TO })
  })

  it('the live month: its biggest merged part is pinned below the first bucket of any other part', () => {
    const pin = choosePin(
      [
        part('202610', 'a_1_9_2', 2, 100, 1000),
        part('202611', 'b_1_9_6', 6, 1000, 5000, 9000), // ends in the first live minute
        part('202611', 'b_10_12_1', 1, 30, 9000),
        part('202611', 'b_13_13_0', 0, 3, 9060)
      ],
      TO
    )
    expect(pin).toEqual({ parts: ['a_1_9_2', 'b_1_9_6'], cutS: 9000 })
  })

  it('the cut is the earliest other part in any month: a merged part starting after it is not pinned', () => {
    const pin = choosePin(
      [
        part('202610', 'a_1_9_2', 2, 100, 1000),
        part('202610', 'a_10_10_0', 0, 5, 1500), // a level-0 part in the earlier month
        part('202611', 'b_1_9_6', 6, 1000, 5000)
      ],
      TO
    )
    expect(pin).toEqual({ parts: ['a_1_9_2'], cutS: 1500 })
  })

  it('level-0 parts only (keys may repeat inside a part): FINAL everywhere', () => {
    expect(choosePin([part('202611', 'b_1_1_0', 0, 10, 5000)], TO)).toEqual(NO_PIN)
    expect(choosePin([], TO)).toEqual(NO_PIN)
  })

  it('an older part before the merged one: nothing of the merged part is below the cut', () => {
    const pin = choosePin([part('202611', 'b_2_9_4', 4, 1000, 5000), part('202611', 'b_1_1_0', 0, 5, 4000)], TO)
    expect(pin).toEqual(NO_PIN)
  })

  it('merged parts of consecutive time ranges (a bulk load before its compaction) are all pinned', () => {
    const pin = choosePin(
      [
        part('202611', 'b_1_5_3', 3, 800, 5000, 6999),
        part('202611', 'b_6_9_2', 2, 200, 7000, 7999),
        part('202611', 'b_10_10_0', 0, 50, 8000, 8500)
      ],
      TO
    )
    expect(pin).toEqual({ parts: ['b_1_5_3', 'b_6_9_2'], cutS: 8000 })
  })

  it('of two merged parts whose bucket ranges meet, the bigger is the candidate; the other bounds the cut', () => {
    const pin = choosePin(
      [part('202611', 'b_1_5_3', 3, 800, 5000, 7000), part('202611', 'b_6_9_2', 2, 200, 7000, 7100)],
      TO
    )
    expect(pin).toEqual({ parts: ['b_1_5_3'], cutS: 7000 })
  })

  it('parts without a time range (min_time 0) turn pinning off', () => {
    expect(choosePin([part('all', 'all_1_9_2', 2, 100, 0)], TO)).toEqual(NO_PIN)
  })
})
