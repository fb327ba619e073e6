/**
 * The replay's own table of normalizers (ingest/record/replay-normalizers.ts, kept apart from the venue
 * registry so the replay worker does not load the live sources) must stay the registry's: the same venue
 * names, and each factory makes a normalizer of the same class with the same gap counting.
 */
import { describe, expect, it } from 'vitest'
import { REPLAY_NORMALIZERS } from '../../ingest/record/replay-normalizers.js'
import { VENUES } from '../../ingest/sources/venues.js'

describe('replay normalizers', () => {
  it('name the venues of the registry, in its order', () => {
    expect([...REPLAY_NORMALIZERS.keys()]).toEqual(VENUES.map((v) => v.name))
  })

  it.each(VENUES.map((v) => [v.name, v] as const))('%s: same normalizer class as the registry', (name, v) => {
    const ours = REPLAY_NORMALIZERS.get(name)!(() => {})
    const theirs = v.replayNormalizer(() => {})
    expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs))
  })
})
