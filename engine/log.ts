/**
 * @module
 * Structured JSON logs (pino) on stdout. One root logger per process; modules take a child with their name.
 */
import { pino, type Logger } from 'pino'

export type { Logger }

const options = (level: string) => ({ level, base: { svc: 'tidewatch' }, timestamp: pino.stdTimeFunctions.isoTime })

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const opts = options(level)
  return destination ? pino(opts, destination as pino.DestinationStream) : pino(opts)
}

/**
 * Longest the last lines of a process wait for room on stdout, ms. A pipe nobody reads (a hung log shipper,
 * a paused pager) answers EAGAIN for ever, and the log stream retries EAGAIN without end by default: the
 * process would never exit. Past this the lines are dropped and the exit goes on.
 */
export const LAST_LINES_WAIT_MS = 1_000

/** EAGAIN/EBUSY retry rule for the last lines: retry until `waitMs` from now, then give up. */
const retryUntil = (waitMs: number): (() => boolean) => {
  const until = Date.now() + waitMs
  return () => Date.now() < until
}

/**
 * A logger whose every line is written to stdout before the call returns (the root logger's stream writes
 * on a libuv thread, which may not run before a process kills itself; that thread pool may be busy with
 * chDB queries). For the last lines of a process only: each line costs a blocking write, waits at most
 * LAST_LINES_WAIT_MS for room, and a line that cannot be written throws (callers about to exit ignore it).
 */
export function createSyncLogger(level: string): Logger {
  return pino(options(level), pino.destination({ dest: 1, sync: true, retryEAGAIN: retryUntil(LAST_LINES_WAIT_MS) }))
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}

/** The part of pino's stdout stream (sonic-boom) a process about to exit uses. */
interface ExitingStream {
  flushSync?: () => void
  destroy?: () => void
  retryEAGAIN?: () => boolean
}

/**
 * Writes out what `log` has buffered, synchronously (pino's stdout stream writes asynchronously), waiting at
 * most LAST_LINES_WAIT_MS for room: for a process about to end, by `process.exit` or SIGKILL to itself.
 * Best effort: what cannot be written then is dropped, and the stream is closed so that the exit handler
 * pino registers does not wait on it again (it would retry a full pipe for ever). Nothing may log after it.
 */
export function flushLogSync(log: Logger): void {
  const stream = (log as unknown as Record<symbol, ExitingStream | undefined>)[pino.symbols.streamSym]
  if (!stream?.flushSync) return
  stream.retryEAGAIN = retryUntil(LAST_LINES_WAIT_MS)
  try {
    stream.flushSync()
  } catch {
    // stdout closed, or full past the wait: nothing more can be written
    try {
      stream.destroy?.()
    } catch {
      // already closed
    }
  }
}
