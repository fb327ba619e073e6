/**
 * @module
 * The confirmation answer as it would have been given at a past moment: `confirmAt` loads the books as of
 * the point in time (engine/live/books-load.ts, only the base's rows and only the books the model reads) and runs the live assembly
 * (engine/live/confirm-inputs.ts) and model (engine/confirm/confirm.ts) with now = asOf. `confirmSeries`
 * answers a run of moments (the engine of `GET /v1/confirm/history`): its i-th result equals
 * `confirmAt(store, base, direction, {asOfMs: stepsMs[i], knownByMs: knownByMs ?? stepsMs[i]})`.
 */
import { confirm, type ConfirmResult, type Direction } from '../confirm/confirm.js'
import type { Store } from '../store/store.js'
import { booksAt, CONFIRM_BOOKS } from '../live/books-load.js'
import { buildConfirmInputs, fundingHistoryAt } from '../live/confirm-inputs.js'
import type { PointInTime } from './point-in-time.js'
import { confirmGrid, gridOf } from './confirm-series.js'

/** The confirmation of `direction` on `base` as of `pit`, from what was stored and received by then. */
export async function confirmAt(
  store: Store,
  base: string,
  direction: Direction,
  pit: PointInTime
): Promise<ConfirmResult> {
  const books = await booksAt(store, pit, [base], CONFIRM_BOOKS)
  const inputs = await buildConfirmInputs(base, pit.asOfMs, {
    ...books,
    fundingHistory: fundingHistoryAt(store, pit.knownByMs)
  })
  return confirm(base, direction, inputs, pit.asOfMs)
}

/**
 * The confirmation at each of `stepsMs` (epoch ms), each known by `knownByMs` or, when absent, by its own
 * moment. Ascending equally spaced steps take one load (engine/asof/confirm-series.ts); others are
 * answered one by one.
 */
export async function confirmSeries(
  store: Store,
  base: string,
  direction: Direction,
  stepsMs: readonly number[],
  knownByMs?: number
): Promise<ConfirmResult[]> {
  // a regular grid (the history endpoint's steps): one load, each step in memory
  const grid = gridOf(stepsMs, knownByMs)
  if (grid) return confirmGrid(store, base, direction, grid)
  const out: ConfirmResult[] = []
  for (const t of stepsMs) out.push(await confirmAt(store, base, direction, { asOfMs: t, knownByMs: knownByMs ?? t }))
  return out
}
