/**
 * @module
 * The pass loop of the venues' REST pollers (what they do not stream: open interest, long/short ratios):
 * each pass asks once per item of the current list (markets or coins) with a fixed number of requests in
 * flight, and the next pass starts `everyMs` after the previous one started (at once when a pass took
 * longer). The venue's REST client paces the requests to its rate limits.
 */
import { sleep } from '../../../engine/runtime/backoff.js'

export interface PollPasses {
  /** time between the starts of two passes, ms */
  readonly everyMs: number
  /** requests in flight during a pass */
  readonly concurrency: number
}

/** Calls `fetchOne` for every item of `items()` once per pass until `signal` aborts. */
export async function pollEach(
  items: () => readonly string[],
  passes: PollPasses,
  fetchOne: (item: string) => Promise<unknown>,
  signal: AbortSignal
): Promise<void> {
  while (!signal.aborted) {
    const started = Date.now()
    const list = [...items()]
    let next = 0
    const worker = async (): Promise<void> => {
      while (!signal.aborted && next < list.length) await fetchOne(list[next++]!)
    }
    await Promise.all(Array.from({ length: passes.concurrency }, worker))
    await sleep(Math.max(0, started + passes.everyMs - Date.now()), signal)
  }
}
