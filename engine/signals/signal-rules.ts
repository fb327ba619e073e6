/**
 * @module
 * When the signal engine fires (docs/signals.md): pure rules from a base and direction's confirmation
 * composite (engine/confirm, for that direction) to its tracked buckets and the events a change fires.
 *
 * Two ladders are tracked per base and direction, both cut at the thresholds of engine/confirm/decision.ts:
 * - the confirmation bucket, extended below NONE with VETO (strong contra): VETO <= -0.5 < NONE <= 0 < LOW
 *   < 0.25 <= MEDIUM < 0.5 <= HIGH;
 * - the action: SKIP <= -0.15 < REDUCE < 0.25 <= CONFIRM.
 * Hysteresis: each threshold opens one bucket (VETO and SKIP below theirs, the others above). The composite
 * enters that bucket at the threshold, the moment /v1/confirm shows it, and leaves it only HYSTERESIS past
 * the threshold the other way. Events: entering HIGH fires HIGH; rising into MEDIUM fires MEDIUM; entering
 * VETO fires VETO; any change of action fires SIGNAL; other moves are silent. Cooldown: one event of a base,
 * direction and kind at most every COOLDOWN_MS; a change whose event is cooling down is held (the bucket
 * stays) and fires at the first evaluation after the cooldown if the composite is still there.
 */
import { CONFIRM_AT, HIGH_AT, SKIP_AT } from '../confirm/decision.js'
import type { SignalEventName } from './signal-event.js'

/** composite at or below this, for the direction, is strong contra: the mirror of HIGH for the other side */
export const VETO_AT = -HIGH_AT
/**
 * How far past a threshold the composite must go back before the bucket it opened is left: a twentieth of
 * the scale, above the second-to-second moves of the price term (5% price = tanh(1) on a 0.2-weight term).
 */
export const HYSTERESIS = 0.05
/** The same event of the same base and direction fires at most once per this, ms: at most 4 an hour. */
export const COOLDOWN_MS = 15 * 60_000

export const LEVELS = ['VETO', 'NONE', 'LOW', 'MEDIUM', 'HIGH'] as const
/** the confirmation bucket of /v1/confirm (HIGH, MEDIUM, LOW, NONE) with VETO below NONE */
export type Level = (typeof LEVELS)[number]
export const ACTIONS = ['SKIP', 'REDUCE', 'CONFIRM'] as const
export type TrackedAction = (typeof ACTIONS)[number]

interface Edge {
  /** the threshold, a composite */
  readonly at: number
  /** a composite exactly at the threshold belongs to the bucket above it */
  readonly atIsAbove: boolean
  /** the bucket this threshold opens: entered at the threshold, left only HYSTERESIS past it */
  readonly opens: 'above' | 'below'
}

/** Buckets in ascending order and the thresholds between them (edges[i] separates buckets i and i + 1). */
export interface Ladder<B extends string> {
  readonly buckets: readonly B[]
  readonly edges: readonly Edge[]
}

export const CONFIRMATION_LADDER: Ladder<Level> = {
  buckets: LEVELS,
  edges: [
    { at: VETO_AT, atIsAbove: false, opens: 'below' },
    { at: 0, atIsAbove: false, opens: 'above' },
    { at: CONFIRM_AT, atIsAbove: true, opens: 'above' },
    { at: HIGH_AT, atIsAbove: true, opens: 'above' }
  ]
}

export const ACTION_LADDER: Ladder<TrackedAction> = {
  buckets: ACTIONS,
  edges: [
    { at: SKIP_AT, atIsAbove: false, opens: 'below' },
    { at: CONFIRM_AT, atIsAbove: true, opens: 'above' }
  ]
}

export interface SignalRules {
  /** @default HYSTERESIS */
  readonly hysteresis: number
  /** @default COOLDOWN_MS */
  readonly cooldownMs: number
}

export const DEFAULT_RULES: SignalRules = { hysteresis: HYSTERESIS, cooldownMs: COOLDOWN_MS }

/** What the engine remembers of one base and direction. */
export interface TrackedState {
  readonly level: Level
  readonly action: TrackedAction
  /** epoch ms each event kind last fired (absent: never, or not since the stored events were read) */
  readonly lastFired: Readonly<Partial<Record<SignalEventName, number>>>
}

export interface StepResult {
  readonly state: TrackedState
  /** events to fire, in this order: the confirmation event (HIGH, MEDIUM or VETO), then SIGNAL */
  readonly fired: readonly SignalEventName[]
}

const isAbove = (c: number, e: Edge): boolean => (e.atIsAbove ? c >= e.at : c > e.at)

/** The bucket index of a composite without hysteresis (what /v1/confirm answers). */
export function rawIndex<B extends string>(ladder: Ladder<B>, composite: number): number {
  let n = 0
  for (const e of ladder.edges) if (isAbove(composite, e)) n++
  return n
}

/**
 * The bucket index after `composite`, from bucket index `prev`: each threshold keeps the side it was on
 * while the composite is within `hysteresis` of it on the far side of the bucket it opens. The thresholds
 * are further apart than twice the hysteresis, so the sides stay ordered and their count is the bucket.
 */
export function stickyIndex<B extends string>(
  ladder: Ladder<B>,
  composite: number,
  prev: number,
  hysteresis: number
): number {
  let n = 0
  ladder.edges.forEach((e, i) => {
    const wasAbove = prev > i
    const above = wasAbove
      ? e.opens === 'above'
        ? composite >= e.at - hysteresis
        : isAbove(composite, e)
      : e.opens === 'below'
        ? composite > e.at + hysteresis
        : isAbove(composite, e)
    if (above) n++
  })
  return n
}

/** The state of a base and direction seen for the first time: its raw buckets, nothing fired. */
export function primeState(composite: number): TrackedState {
  return {
    level: LEVELS[rawIndex(CONFIRMATION_LADDER, composite)]!,
    action: ACTIONS[rawIndex(ACTION_LADDER, composite)]!,
    lastFired: {}
  }
}

/** The event a move of the confirmation bucket fires, or null for a silent move. */
export function levelEvent(from: Level, to: Level): SignalEventName | null {
  const up = LEVELS.indexOf(to) > LEVELS.indexOf(from)
  if (up && to === 'HIGH') return 'HIGH'
  if (up && to === 'MEDIUM') return 'MEDIUM'
  if (!up && to === 'VETO') return 'VETO'
  return null
}

const cooling = (s: TrackedState, e: SignalEventName, nowMs: number, rules: SignalRules): boolean => {
  const last = s.lastFired[e]
  return last !== undefined && nowMs - last < rules.cooldownMs
}

/** One evaluation of a base and direction: its new state and the events it fires. Pure. */
export function step(
  s: TrackedState,
  composite: number,
  nowMs: number,
  rules: SignalRules = DEFAULT_RULES
): StepResult {
  const fired: SignalEventName[] = []
  const lastFired = { ...s.lastFired }
  let level = s.level
  const nextLevel = LEVELS[stickyIndex(CONFIRMATION_LADDER, composite, LEVELS.indexOf(s.level), rules.hysteresis)]!
  if (nextLevel !== s.level) {
    const e = levelEvent(s.level, nextLevel)
    if (e === null) level = nextLevel
    else if (!cooling(s, e, nowMs, rules)) {
      level = nextLevel
      fired.push(e)
      lastFired[e] = nowMs
    }
  }
  let action = s.action
  const nextAction = ACTIONS[stickyIndex(ACTION_LADDER, composite, ACTIONS.indexOf(s.action), rules.hysteresis)]!
  if (nextAction !== s.action && !cooling(s, 'SIGNAL', nowMs, rules)) {
    action = nextAction
    fired.push('SIGNAL')
    lastFired.SIGNAL = nowMs
  }
  if (level === s.level && action === s.action && fired.length === 0) return { state: s, fired }
  return { state: { level, action, lastFired }, fired }
}

function checkLadder<B extends string>(ladder: Ladder<B>, hysteresis: number): void {
  for (let i = 1; i < ladder.edges.length; i++) {
    if (ladder.edges[i]!.at - ladder.edges[i - 1]!.at <= 2 * hysteresis) {
      throw new Error(`signal thresholds ${ladder.edges[i - 1]!.at} and ${ladder.edges[i]!.at} are too close`)
    }
  }
}

/** Validates rules at construction: a hysteresis wider than half a gap would let buckets overlap. */
export function checkRules(rules: SignalRules): SignalRules {
  if (!(rules.hysteresis >= 0)) throw new RangeError(`hysteresis must be >= 0, got ${rules.hysteresis}`)
  if (!(rules.cooldownMs >= 0)) throw new RangeError(`cooldownMs must be >= 0, got ${rules.cooldownMs}`)
  checkLadder(CONFIRMATION_LADDER, rules.hysteresis)
  checkLadder(ACTION_LADDER, rules.hysteresis)
  return rules
}
