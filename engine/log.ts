/**
 * @module
 * Structured JSON logs (pino) on stdout. One root logger per process; modules take a child with their name.
 */
import { pino, type Logger } from 'pino'

export type { Logger }

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const opts = { level, base: { svc: 'tidewatch' }, timestamp: pino.stdTimeFunctions.isoTime }
  return destination ? pino(opts, destination as pino.DestinationStream) : pino(opts)
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
