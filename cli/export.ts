/**
 * @module
 * `tidewatch export --symbols BTC,ETH --timeframe 1h --lookback 90d --format parquet --out FILE`: downloads
 * `/v1/backtest/export` from the running server into FILE. The body is written to `FILE.part-<pid>` as it
 * arrives (waiting for the disk, so memory stays flat) and renamed to FILE only when the transfer ended
 * complete; on any failure (error answer, lost connection, cut-short transfer, Ctrl-C) the part file is
 * removed, so no partial FILE is ever left. Progress goes to stderr: bytes, rate and, for text formats,
 * rows against the most the server can send (markets x buckets). When the server labels the export
 * synthetic (header `x-tidewatch-synthetic: true`: it holds demo-market data), a warning says so before the
 * download and again with the file name; FILE keeps the name asked for. `--layout freqtrade` unpacks
 * freqtrade's data directory instead (export-freqtrade.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { once } from 'node:events'
import { UsageError, stringFlag } from './args.js'
import { CliError } from './client.js'
import { downloadFreqtrade } from './export-freqtrade.js'
import { requestExport } from './export-request.js'
import type { CommandGroup, Io } from './command.js'
import { withInterrupt } from './interrupt.js'
import { ProgressLine, progressBar } from './progress.js'

const FORMATS = ['csv', 'json', 'parquet', 'hdf5', 'arrow'] as const
const PROGRESS_EVERY_MS = 250

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`
}

/** One progress line: a bar when a total is known, else counters; always bytes and rate. */
export function progressLine(bytes: number, rows: number | null, maxRows: number | null, elapsedMs: number): string {
  const rate = `${mb((bytes * 1000) / Math.max(1, elapsedMs))}/s`
  if (rows !== null && maxRows !== null && maxRows > 0) {
    return `${progressBar(rows / maxRows)} ${rows.toLocaleString('en-US')} rows  ${mb(bytes)}  ${rate}`
  }
  return `${rows === null ? '' : `${rows.toLocaleString('en-US')} rows  `}${mb(bytes)}  ${rate}`
}

function required(args: Parameters<typeof stringFlag>[0], name: string, what: string): string {
  const v = stringFlag(args, name)
  if (v === undefined || v === '') throw new UsageError(`--${name} is required (${what})`)
  return v
}

async function download(
  url: string,
  key: string,
  out: string,
  format: string,
  io: Io,
  tty: boolean,
  signal: AbortSignal
): Promise<void> {
  const part = `${out}.part-${process.pid}`
  let file: fs.WriteStream | null = null
  try {
    const { res, synthetic } = await requestExport(url, key, io, signal)
    const maxRows = Number(res.headers.get('x-export-max-rows') ?? '') || null
    const countsRows = format === 'csv' || format === 'json'
    file = fs.createWriteStream(part, { flags: 'wx' })
    await once(file, 'open')
    const started = Date.now()
    let bytes = 0
    let newlines = 0
    const progress = new ProgressLine(io, tty, PROGRESS_EVERY_MS)
    const line = (): string => {
      const rows = countsRows ? Math.max(0, newlines - (format === 'csv' ? 1 : 0)) : null
      return progressLine(bytes, rows, maxRows, Date.now() - started)
    }
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Uint8Array
        bytes += buf.byteLength
        if (countsRows) for (let i = 0; i < buf.length; i++) if (buf[i] === 10) newlines++
        if (!file.write(buf)) await once(file, 'drain')
        progress.update(line)
      }
    } catch (err) {
      throw new CliError(
        signal.aborted
          ? 'interrupted'
          : 'the transfer was cut short (server error or lost connection); nothing was written',
        1,
        { cause: err }
      )
    }
    file.end()
    await once(file, 'finish')
    fs.renameSync(part, out)
    file = null
    progress.finish(line())
    io.err(synthetic ? `wrote ${out} (SYNTHETIC demo data)\n` : `wrote ${out}\n`)
  } finally {
    if (file) {
      file.destroy()
      fs.rmSync(part, { force: true })
    }
  }
}

export const exportGroup: CommandGroup = {
  name: 'export',
  summary: 'download a bulk OHLCV export (/v1/backtest/export) into a file',
  commands: [
    {
      name: '',
      synopsis:
        '--symbols <BTC,ETH> --timeframe <1m..1M> --lookback <90d> (--format <csv|json|parquet|hdf5|arrow> --out <file> | --layout freqtrade --exchange <venue> --out <dir>) [--exchange <venue>] [--known-by <moment>] [--key <api key>]',
      summary:
        "stream an export to --out (never leaves a partial file), or with --layout freqtrade unpack freqtrade's data directory into --out; API key from --key or TIDEWATCH_API_KEY",
      flags: {
        symbols: 'string',
        timeframe: 'string',
        lookback: 'string',
        format: 'string',
        layout: 'string',
        out: 'string',
        exchange: 'string',
        'known-by': 'string',
        key: 'string'
      },
      operands: [],
      async run({ args, client, io }) {
        const symbols = required(args, 'symbols', 'comma list, e.g. BTC,ETH')
        const timeframe = required(args, 'timeframe', '1m, 5m, 15m, 1h, 4h, 1d, 1w or 1M')
        const lookback = required(args, 'lookback', 'e.g. 90d')
        const key = stringFlag(args, 'key') ?? process.env['TIDEWATCH_API_KEY']
        const layout = stringFlag(args, 'layout') ?? 'tidewatch'
        // the records received by this moment only (epoch ms or ISO 8601 UTC; docs/history.md "Known by")
        const knownBy = stringFlag(args, 'known-by')
        if (layout === 'freqtrade') {
          const exchange = required(args, 'exchange', 'freqtrade keeps one data directory per exchange, e.g. binance')
          const dir = path.resolve(required(args, 'out', 'the data directory, e.g. user_data/data/binance'))
          if (!key) throw new UsageError('an API key is required: --key or TIDEWATCH_API_KEY (a pro or enterprise key)')
          const q = new URLSearchParams({ symbols, timeframe, lookback, exchange, layout })
          if (knownBy) q.set('known_by', knownBy)
          const url = `${client.url}/v1/backtest/export?${q}`
          const tty = process.stderr.isTTY === true
          await withInterrupt((signal) => downloadFreqtrade(url, key, dir, io, tty, signal))
          return
        }
        if (layout !== 'tidewatch') {
          throw new UsageError(`--layout must be tidewatch or freqtrade; got ${JSON.stringify(layout)}`)
        }
        const format = required(args, 'format', FORMATS.join(', '))
        if (!(FORMATS as readonly string[]).includes(format)) {
          throw new UsageError(`--format must be one of ${FORMATS.join(', ')}; got ${JSON.stringify(format)}`)
        }
        const out = path.resolve(required(args, 'out', 'the file to write'))
        if (!fs.existsSync(path.dirname(out)))
          throw new UsageError(`--out: directory ${path.dirname(out)} does not exist`)
        if (!key) throw new UsageError('an API key is required: --key or TIDEWATCH_API_KEY (a pro or enterprise key)')
        const q = new URLSearchParams({ symbols, timeframe, lookback, format })
        const exchange = stringFlag(args, 'exchange')
        if (exchange) q.set('exchange', exchange)
        if (knownBy) q.set('known_by', knownBy)
        const url = `${client.url}/v1/backtest/export?${q}`
        await withInterrupt((signal) => download(url, key, out, format, io, process.stderr.isTTY === true, signal))
      }
    }
  ]
}
