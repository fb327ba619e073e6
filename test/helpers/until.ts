/**
 * Waiting for an outcome instead of for a time: polls a condition until it holds. The bound only turns a
 * hang into a failure that names what never happened; it sits far past how long the outcome takes on a
 * loaded machine and below Vitest's test timeout (vitest.config.ts, 60 s), so no pass depends on speed.
 */

/** How often the condition is looked at, ms: often enough not to slow a test, rarely enough not to load it. */
const POLL_MS = 20
/** Default bound, ms (the test timeout is 60 s). */
const BOUND_MS = 50_000

/** Resolves once `cond` holds; throws with `what` (and how long it waited) after `boundMs`. */
export async function until(
  what: string,
  cond: () => boolean | Promise<boolean>,
  boundMs: number = BOUND_MS
): Promise<void> {
  const end = performance.now() + boundMs
  for (;;) {
    if (await cond()) return
    if (performance.now() > end) throw new Error(`${what}: not so after ${boundMs} ms`)
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
}
