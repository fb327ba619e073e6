import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SignalEventName } from '../../engine/signals/signal-event.js'
import {
  checkRules,
  CONFIRMATION_LADDER,
  COOLDOWN_MS,
  DEFAULT_RULES,
  HYSTERESIS,
  primeState,
  stickyIndex,
  step,
  type SignalRules,
  type TrackedState
} from '../../engine/signals/signal-rules.js'

const T0 = Date.UTC(2025, 0, 5, 8)
const SEC = 1_000

/** Runs composites through the rules from a primed state, one evaluation per `everyMs`; returns all events. */
function run(
  composites: readonly number[],
  everyMs = SEC,
  rules: SignalRules = DEFAULT_RULES
): { fired: { e: SignalEventName; at: number }[]; state: TrackedState } {
  let state = primeState(composites[0]!)
  const fired: { e: SignalEventName; at: number }[] = []
  composites.slice(1).forEach((c, i) => {
    const at = T0 + (i + 1) * everyMs
    const r = step(state, c, at, rules)
    state = r.state
    for (const e of r.fired) fired.push({ e, at })
  })
  return { fired, state }
}

const names = (r: ReturnType<typeof run>): SignalEventName[] => r.fired.map((f) => f.e)

describe('signal rules: which event fires', () => {
  it('primes silently with the raw buckets of the first composite', () => {
    expect(primeState(0.6)).toEqual({ level: 'HIGH', action: 'CONFIRM', lastFired: {} })
    expect(primeState(0.25)).toEqual({ level: 'MEDIUM', action: 'CONFIRM', lastFired: {} })
    expect(primeState(0)).toEqual({ level: 'NONE', action: 'REDUCE', lastFired: {} })
    expect(primeState(-0.15)).toEqual({ level: 'NONE', action: 'SKIP', lastFired: {} })
    expect(primeState(-0.5)).toEqual({ level: 'VETO', action: 'SKIP', lastFired: {} })
  })

  it('HIGH when the composite reaches 0.5 (the bucket /v1/confirm shows), not at 0.4999', () => {
    expect(names(run([0.3, 0.4999]))).toEqual([])
    const r = run([0.3, 0.5])
    expect(names(r)).toEqual(['HIGH'])
    expect(r.state).toMatchObject({ level: 'HIGH', action: 'CONFIRM' })
  })

  it('MEDIUM when rising into MEDIUM (with SIGNAL: the action becomes CONFIRM), not when falling into it', () => {
    expect(names(run([0.1, 0.25]))).toEqual(['MEDIUM', 'SIGNAL'])
    expect(names(run([-0.3, 0.3]))).toEqual(['MEDIUM', 'SIGNAL'])
    const fall = run([0.6, 0.3])
    expect(names(fall)).toEqual([])
    expect(fall.state.level).toBe('MEDIUM')
  })

  it('VETO at or below -0.5; the action was SKIP already, so no SIGNAL', () => {
    expect(names(run([-0.3, -0.4999]))).toEqual([])
    const r = run([-0.3, -0.5])
    expect(names(r)).toEqual(['VETO'])
    expect(r.state).toMatchObject({ level: 'VETO', action: 'SKIP' })
    // straight from HIGH: VETO and the action change
    expect(names(run([0.7, -0.8]))).toEqual(['VETO', 'SIGNAL'])
  })

  it('SIGNAL on every change of action, and only then', () => {
    expect(names(run([0, -0.15]))).toEqual(['SIGNAL'])
    expect(run([0, -0.15]).state.action).toBe('SKIP')
    expect(names(run([0.1, 0.2]))).toEqual([])
    expect(names(run([0.3, 0.1]))).toEqual(['SIGNAL'])
    expect(run([0.3, 0.1]).state).toMatchObject({ level: 'LOW', action: 'REDUCE' })
  })

  it('a jump over several buckets fires the bucket reached once (HIGH, not MEDIUM too)', () => {
    expect(names(run([-0.2, 0.8]))).toEqual(['HIGH', 'SIGNAL'])
  })

  it('silent moves: falling out of HIGH, MEDIUM and LOW, leaving VETO, rising into LOW', () => {
    expect(names(run([0.6, 0.3, 0.22]))).toEqual([])
    expect(names(run([0.1, -0.1]))).toEqual([])
    expect(names(run([-0.6, -0.3]))).toEqual([])
    expect(names(run([-0.1, 0.1]))).toEqual([])
  })
})

describe('signal rules: hysteresis', () => {
  it('a bucket entered at its threshold is kept until the composite is HYSTERESIS past it the other way', () => {
    // HIGH kept at 0.46 and 0.45, left at 0.4499 (silently); entering again fires only after the cooldown
    const r = run([0.3, 0.5, 0.46, 0.45, 0.5, 0.4499])
    expect(names(r)).toEqual(['HIGH'])
    expect(r.state.level).toBe('MEDIUM')
    // VETO kept up to -0.45, left above it
    expect(run([-0.3, -0.5, -0.46, -0.45]).state.level).toBe('VETO')
    expect(run([-0.3, -0.5, -0.4499]).state.level).toBe('NONE')
    // CONFIRM kept down to 0.20; SKIP kept up to -0.10 (without a cooldown, to see every change)
    const free = { hysteresis: HYSTERESIS, cooldownMs: 0 }
    expect(names(run([0.1, 0.25, 0.21, 0.2], SEC, free))).toEqual(['MEDIUM', 'SIGNAL'])
    expect(names(run([0.1, 0.25, 0.1999], SEC, free))).toEqual(['MEDIUM', 'SIGNAL', 'SIGNAL'])
    expect(names(run([0, -0.15, -0.11, -0.1], SEC, free))).toEqual(['SIGNAL'])
    expect(names(run([0, -0.15, -0.0999], SEC, free))).toEqual(['SIGNAL', 'SIGNAL'])
  })

  it('keeps each threshold on its side in a multi-bucket move (HIGH to 0.22 lands in MEDIUM, kept to 0.20)', () => {
    expect(stickyIndex(CONFIRMATION_LADDER, 0.22, 4, HYSTERESIS)).toBe(3)
    expect(stickyIndex(CONFIRMATION_LADDER, 0.19, 4, HYSTERESIS)).toBe(2)
    expect(stickyIndex(CONFIRMATION_LADDER, 0.3, 0, HYSTERESIS)).toBe(3)
    expect(stickyIndex(CONFIRMATION_LADDER, -0.46, 0, HYSTERESIS)).toBe(0)
  })
})

describe('signal rules: cooldown', () => {
  it('holds a change whose event cooled down less than COOLDOWN_MS ago, and fires it after if still there', () => {
    const rules = DEFAULT_RULES
    let s = primeState(0.3)
    const a = step(s, 0.6, T0, rules)
    expect(a.fired).toEqual(['HIGH'])
    s = step(a.state, 0.3, T0 + SEC, rules).state
    expect(s.level).toBe('MEDIUM')
    const held = step(s, 0.6, T0 + 2 * SEC, rules)
    expect(held.fired).toEqual([])
    expect(held.state.level).toBe('MEDIUM')
    const still = step(held.state, 0.6, T0 + COOLDOWN_MS - 1, rules)
    expect(still.fired).toEqual([])
    const after = step(still.state, 0.6, T0 + COOLDOWN_MS, rules)
    expect(after.fired).toEqual(['HIGH'])
    expect(after.state.lastFired.HIGH).toBe(T0 + COOLDOWN_MS)
  })

  it('a held action change that reverts within the cooldown never fires', () => {
    let s = primeState(0.3)
    const down = step(s, 0.1, T0, DEFAULT_RULES)
    expect(down.fired).toEqual(['SIGNAL'])
    s = step(down.state, 0.3, T0 + SEC).state
    expect(s.action).toBe('REDUCE') // held: the subscriber's last word (REDUCE) is still the tracked one
    const back = step(s, 0.1, T0 + COOLDOWN_MS + SEC)
    expect(back.fired).toEqual([])
  })

  it('cools each event kind apart: a VETO right after a SIGNAL still fires', () => {
    expect(names(run([0, -0.2, -0.6]))).toEqual(['SIGNAL', 'VETO'])
  })

  it('checks the rules at construction', () => {
    expect(() => checkRules({ hysteresis: 0.2, cooldownMs: 0 })).toThrow(/too close/)
    expect(() => checkRules({ hysteresis: -1, cooldownMs: 0 })).toThrow(/hysteresis/)
    expect(() => checkRules({ hysteresis: 0.05, cooldownMs: Number.NaN })).toThrow(/cooldownMs/)
  })
})

describe('signal rules: a score hovering at a threshold does not fire a storm (property)', () => {
  const THRESHOLDS = [-0.5, -0.15, 0, 0.25, 0.5]
  const KINDS: SignalEventName[] = ['HIGH', 'MEDIUM', 'VETO', 'SIGNAL']
  const series = (amplitude: fc.Arbitrary<number>) =>
    fc.record({
      t: fc.constantFrom(...THRESHOLDS),
      offsets: fc.array(amplitude, { minLength: 2, maxLength: 400 }),
      everyMs: fc.integer({ min: SEC, max: 120 * SEC })
    })
  const perKind = (fired: { e: SignalEventName }[]) => KINDS.map((k) => fired.filter((f) => f.e === k).length)

  it('oscillating within the hysteresis around a threshold fires each event kind at most once, cooldown or not', () => {
    fc.assert(
      fc.property(
        series(fc.double({ min: -HYSTERESIS * 0.999, max: HYSTERESIS * 0.999, noNaN: true })),
        fc.constantFrom(0, COOLDOWN_MS),
        ({ t, offsets, everyMs }, cooldownMs) => {
          const r = run(
            offsets.map((o) => t + o),
            everyMs,
            { hysteresis: HYSTERESIS, cooldownMs }
          )
          for (const n of perKind(r.fired)) expect(n).toBeLessThanOrEqual(1)
        }
      ),
      { seed: 1401, numRuns: 2000 }
    )
  })

  it('any swing around a threshold fires each kind at most once per cooldown (1 + span / COOLDOWN_MS)', () => {
    fc.assert(
      fc.property(series(fc.double({ min: -1, max: 1, noNaN: true })), ({ t, offsets, everyMs }) => {
        const r = run(
          offsets.map((o) => Math.max(-1, Math.min(1, t + o))),
          everyMs
        )
        const span = (offsets.length - 1) * everyMs
        const bound = 1 + Math.floor(span / COOLDOWN_MS)
        for (const n of perKind(r.fired)) expect(n).toBeLessThanOrEqual(bound)
        // and the same kind never fires twice within a cooldown
        for (const k of KINDS) {
          const at = r.fired.filter((f) => f.e === k).map((f) => f.at)
          for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(COOLDOWN_MS)
        }
      }),
      { seed: 1402, numRuns: 2000 }
    )
  })
})
