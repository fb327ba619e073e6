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
 * A logger whose every line is written to stdout before the call returns (the root logger's stream writes
 * on a libuv thread, which may not run before a process kills itself; that thread pool may be busy with
 * chDB queries). For the last lines of a process only: each line costs a blocking write.
 */
export function createSyncLogger(level: string): Logger {
  return pino(options(level), pino.destination({ dest: 1, sync: true }))
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}

/**
 * Writes out what `log` has buffered, synchronously (pino's stdout stream writes asynchronously): for a
 * process about to end without an exit handler (SIGKILL to itself). Best effort: a write that fails is lost.
 */
export function flushLogSync(log: Logger): void {
  const stream = (log as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[pino.symbols.streamSym]
  try {
    stream?.flushSync?.()
  } catch {
    // stdout closed or full: nothing more can be written
  }
}
