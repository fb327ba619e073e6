/**
 * @module
 * `tidewatch import <file>... [--market perp|spot]`: imports data.binance.vision and Tardis.dev files
 * (docs/import.md). Where it writes:
 * - `--url` or TIDEWATCH_URL given: through that server (`POST /v1/admin/import`; the server reads the
 *   files, so they must be on its machine).
 * - otherwise the data directory (DATA_DIR, default ./data): when no server holds it, the CLI opens it
 *   itself; when a running server holds its lock, the CLI imports through that server's admin API.
 * Progress goes to stderr, one summary line per imported file to stdout. Exit 0 when every file was
 * imported, 1 when one failed (the message names file and line; nothing of that file was written, files
 * before it stay imported), 2 for usage errors.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UsageError, stringFlag } from './args.js'
import { CliError, type AdminClient } from './client.js'
import type { CommandGroup, Io } from './command.js'
import { importLocal, tryLock } from './import-local.js'
import { REDRAW_MS, progressText, summaryText } from './import-progress.js'
import { withInterrupt } from './interrupt.js'
import { ProgressLine } from './progress.js'
import { ImportError } from '../ingest/import/import-error.js'
import type { FileResult } from '../ingest/import/run-import.js'
import type { ImportEvent } from '../ingest/import/import-events.js'

async function viaServer(
  client: AdminClient,
  files: readonly string[],
  market: 'perp' | 'spot' | undefined,
  io: Io,
  display: ProgressLine,
  signal: AbortSignal
): Promise<void> {
  const res = await client.open('/v1/admin/import', { files, ...(market ? { market } : {}) }, signal)
  let rest = ''
  let end: ImportEvent | null = null
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      rest += Buffer.from(chunk).toString('utf8')
      let nl: number
      while ((nl = rest.indexOf('\n')) !== -1) {
        const event = JSON.parse(rest.slice(0, nl)) as ImportEvent
        rest = rest.slice(nl + 1)
        if (event.type === 'progress') display.update(() => progressText(event))
        else if (event.type === 'file') {
          display.clear()
          io.out(summaryText(event))
        } else end = event
      }
    }
  } catch (err) {
    throw new CliError(signal.aborted ? 'interrupted' : 'the connection to the server was lost during the import', 1, {
      cause: err
    })
  }
  display.clear()
  if (end?.type === 'error') throw new CliError(end.message)
  if (end?.type !== 'done') throw new CliError('the server ended the import without a result')
}

async function locally(
  dataDir: string,
  release: () => void,
  files: readonly string[],
  market: 'perp' | 'spot' | undefined,
  io: Io,
  display: ProgressLine,
  signal: AbortSignal
): Promise<void> {
  let results: FileResult[] = []
  try {
    results = await importLocal(
      dataDir,
      release,
      files,
      {
        ...(market ? { market } : {}),
        signal,
        onProgress: (p) => {
          display.update(() => progressText(p))
          if (p.phase === 'done') display.clear()
        }
      },
      (n) => io.err(`tidewatch: completed ${n} write(s) interrupted by the last process on ${dataDir}\n`)
    )
  } catch (err) {
    display.clear()
    if (err instanceof ImportError) throw new CliError(err.message, 1, { cause: err })
    if (signal.aborted) throw new CliError('interrupted (files already imported stay imported)', 1, { cause: err })
    throw err
  }
  for (const r of results) io.out(summaryText(r))
}

export const importGroup: CommandGroup = {
  name: 'import',
  summary: 'import data.binance.vision / Tardis.dev history files',
  commands: [
    {
      name: '',
      synopsis: '<file>... [--market perp|spot]',
      summary:
        'import .zip/.csv (data.binance.vision: aggTrades, klines, fundingRate, metrics) and .csv.gz (Tardis.dev: trades, derivative_ticker, options_chain); through the server when one holds DATA_DIR or --url is given, else into DATA_DIR directly',
      flags: { market: 'string' },
      operands: ['file'],
      variadic: true,
      async run({ args, operands, client, io }) {
        const market = stringFlag(args, 'market')
        if (market !== undefined && market !== 'perp' && market !== 'spot') {
          throw new UsageError(`--market must be perp or spot; got ${JSON.stringify(market)}`)
        }
        const files = operands.map((f) => path.resolve(f))
        for (const f of files) if (!fs.existsSync(f)) throw new CliError(`${f}: no such file`, 2)
        const display = new ProgressLine(io, process.stderr.isTTY === true, REDRAW_MS)
        const throughServer = (): Promise<void> =>
          withInterrupt((signal) => viaServer(client, files, market, io, display, signal))
        if (args.flags.has('url') || process.env['TIDEWATCH_URL']) return throughServer()
        if (process.env['CLICKHOUSE_URL']) {
          throw new CliError('CLICKHOUSE_URL is set: imports need the embedded store (docs/import.md)', 2)
        }
        const dataDir = path.resolve(process.env['DATA_DIR'] || './data')
        const release = tryLock(dataDir)
        if (release) return withInterrupt((signal) => locally(dataDir, release, files, market, io, display, signal))
        io.err(`tidewatch: ${dataDir} is in use by the server; importing through ${client.url}\n`)
        return throughServer()
      }
    }
  ]
}
