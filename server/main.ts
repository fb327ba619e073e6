/**
 * @module
 * Process entry (`npm start`). Sets TZ=UTC (chDB renders DateTime in the process zone) and a larger libuv
 * pool (chDB's async queries run there; with the default 4 they starve file I/O) before anything else
 * loads, then starts the service. Exit codes: 0 after a clean shutdown, 2 on bad configuration or data
 * directory (one line naming the variable or file), 1 on any other failure; a forced stop ends killed by
 * SIGKILL (status 137, server/stop-signals.ts).
 */
process.env['TZ'] = 'UTC'
process.env['UV_THREADPOOL_SIZE'] ??= '16'

const { loadConfig, ConfigError } = await import('./config.js')
const { DataDirError } = await import('../engine/store/chdb/data-dir.js')
const { MigrationError } = await import('../engine/schema/migrate.js')
const { ListenError } = await import('./http/uws-server.js')
const { createLogger, flushLogSync } = await import('../engine/log.js')
const { forceExit, HARD_STOP_MS, REPEAT_WINDOW_MS, StopSignals } = await import('./stop-signals.js')
const { recordStop } = await import('./last-stop.js')

let config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`tidewatch: invalid configuration: ${err.message}\n`)
    process.exit(2)
  }
  throw err
}

const log = createLogger(config.logLevel)
const { start } = await import('./start.js')
type Running = Awaited<ReturnType<typeof start>>

let running: Running | undefined
/** epoch ms of the signal that started the stop, once one did */
let stopAt: number | undefined
const verdicts = new StopSignals()

/** What a forced exit leaves unwritten (null before the service started). */
const unwritten = () => {
  if (!running) return null
  const { pipeline, quota, webhooks } = running.ctx
  const w = webhooks?.outbox.stats()
  return {
    queued_rows: pipeline.totals().queued,
    usage_calls: quota.unflushed(),
    ...(w && { webhooks: { pending: w.pending, in_flight: w.in_flight, writer_queued: w.writer_queued } })
  }
}

/** Forced exit, recorded for the next start's /v1/health first (server/last-stop.ts). */
const force = (reason: string): never => {
  const left = unwritten()
  recordStop(config.dataDir, { kind: 'forced', reason, left_unwritten: left })
  return forceExit(log, reason, left)
}

const stopService = (r: Running): void => {
  r.stop().then(
    () => {
      log.info({ ms: Date.now() - stopAt! }, 'stopped cleanly')
      recordStop(config.dataDir, { kind: 'clean' })
      flushLogSync(log) // bounded: a full stdout pipe nobody reads must not hold the exit
      process.exit(0)
    },
    (err: unknown) => force(`shutdown failed: ${(err as Error).message}`)
  )
}

// Installed before the start: a signal while the service starts stops it as soon as it runs.
const onSignal = (sig: NodeJS.Signals): void => {
  const verdict = verdicts.classify(sig)
  if (verdict === 'repeat') {
    log.info({ sig }, `${sig} again: the same stop (${sig} after ${REPEAT_WINDOW_MS} ms, or another signal, forces)`)
    return
  }
  if (verdict === 'force') force(`${sig} during the stop`)
  stopAt = Date.now()
  log.info({ sig, deadline_ms: HARD_STOP_MS }, 'shutting down: flushing queued batches')
  setTimeout(() => force(`the stop took longer than ${HARD_STOP_MS} ms`), HARD_STOP_MS)
  if (running) stopService(running)
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)

try {
  running = await start(config, log)
} catch (err) {
  if (err instanceof DataDirError || err instanceof MigrationError || err instanceof ListenError) {
    process.stderr.write(`tidewatch: ${err.message}\n`)
    process.exit(2)
  }
  process.stderr.write(`tidewatch: failed to start: ${(err as Error).message}\n`)
  process.exit(1)
}
if (stopAt !== undefined) stopService(running)
