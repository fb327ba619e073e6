/**
 * @module
 * Process entry (`npm start`). Sets TZ=UTC (chDB renders DateTime in the process zone) and a larger libuv
 * pool (chDB's async queries run there; with the default 4 they starve file I/O) before anything else
 * loads, then starts the service. Exit codes: 0 after a clean shutdown, 2 on bad configuration or data
 * directory (one line naming the variable or file), 1 on any other failure.
 */
process.env['TZ'] = 'UTC'
process.env['UV_THREADPOOL_SIZE'] ??= '16'

const { loadConfig, ConfigError } = await import('../engine/config.js')
const { DataDirError } = await import('../engine/store/chdb/data-dir.js')
const { MigrationError } = await import('../engine/schema/migrate.js')
const { ListenError } = await import('./http/uws-server.js')
const { createLogger } = await import('../engine/log.js')

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

let running
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

let signals = 0
const onSignal = (sig: NodeJS.Signals): void => {
  if (++signals > 1) {
    log.warn({ sig }, 'second signal: exiting without waiting')
    process.exit(1)
  }
  log.info({ sig }, 'shutting down: flushing queued batches')
  running.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err: (err as Error).message }, 'shutdown failed')
      process.exit(1)
    }
  )
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)
