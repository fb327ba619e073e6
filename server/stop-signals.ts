/**
 * @module
 * How the process reads SIGINT and SIGTERM (docs/deployment.md, "Stopping it").
 *
 * - The first signal starts the graceful stop.
 * - The same signal again within REPEAT_WINDOW_MS of its previous delivery is the same stop, counted once:
 *   Ctrl-C in the terminal of `npm start` sends SIGINT to the whole process group (npm and the server),
 *   and npm forwards its copy to the server milliseconds later; a group SIGTERM (`kill -TERM -<pgid>`, a
 *   process manager stopping a control group) arrives twice the same way.
 * - A later delivery of the same signal (Ctrl-C pressed again after the window) or any other signal forces.
 * - HARD_STOP_MS after the first signal the process is forced whatever still runs: it never hangs.
 *
 * A forced exit never calls `process.exit` while the embedded engine may run a query on a libuv thread:
 * `exit()` runs the engine's static destructors under those threads, which crashed the process (SIGSEGV,
 * status 139) or hung it. It sends itself SIGKILL instead, after logging what it leaves unwritten: the
 * kernel ends every thread at once, nothing is unloaded, and what survives is what survives `kill -9`.
 * Its log lines wait for room on stdout at most LAST_LINES_WAIT_MS (engine/log.ts): a full stdout pipe
 * nobody reads delays the SIGKILL by that, never blocks it.
 */
import { createSyncLogger, flushLogSync, type Logger } from '../engine/log.js'

/**
 * Repeats of the stop's signal closer than this to the previous one are the same stop, ms. npm forwards
 * its copy within milliseconds; 2 s leaves room for a loaded machine and stays short of a deliberate
 * second Ctrl-C.
 */
export const REPEAT_WINDOW_MS = 2_000

/**
 * Longest a stop may take from its first signal, ms: the shutdown's own deadline for sources and queued
 * batches (30 s, server/start.ts) plus 10 s to end webhook attempts, save usage counts and close the store.
 */
export const HARD_STOP_MS = 40_000

/** Exit status of a forced exit as a shell reports it: killed by SIGKILL (128 + 9). */
export const FORCED_EXIT_STATUS = 137

/** What one delivered signal means. */
export type SignalVerdict = 'stop' | 'repeat' | 'force'

/** Classifies deliveries of SIGINT/SIGTERM; `now` in epoch ms (injectable for tests). */
export class StopSignals {
  private signal: NodeJS.Signals | undefined
  /** epoch ms of the latest delivery of the stop's signal */
  private last = 0

  constructor(private readonly now: () => number = Date.now) {}

  classify(sig: NodeJS.Signals): SignalVerdict {
    const t = this.now()
    if (this.signal === undefined) {
      this.signal = sig
      this.last = t
      return 'stop'
    }
    if (sig === this.signal && t - this.last <= REPEAT_WINDOW_MS) {
      this.last = t
      return 'repeat'
    }
    return 'force'
  }
}

/** What a stop cut short leaves unwritten, for the forced-exit log line. */
export type Unwritten = Record<string, number | Record<string, number>>

/**
 * Ends the process without unloading the embedded engine: logs the reason and what is left unwritten with
 * a blocking write, then SIGKILL to itself.
 */
export function forceExit(log: Logger, reason: string, unwritten: Unwritten | null): never {
  flushLogSync(log) // lines still queued in the root logger's stream (one already being written may be lost)
  try {
    createSyncLogger(log.level).error(
      { reason, exit_status: FORCED_EXIT_STATUS, left_unwritten: unwritten ?? 'not started' },
      'forced exit: not waiting for the stop to end'
    )
  } catch {
    // stdout closed, or full past the last lines' wait: the line is lost, the exit is not
  }
  process.kill(process.pid, 'SIGKILL')
  // SIGKILL to oneself is delivered before kill(2) returns; nothing below runs
  throw new Error('unreachable: SIGKILL did not end the process')
}
