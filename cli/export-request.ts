/**
 * @module
 * The request of `tidewatch export`: `/v1/backtest/export` with the API key, the server's error message as a
 * CliError, and the warning when the server labels the export synthetic.
 */
import { CliError } from './client.js'
import type { Io } from './command.js'
import { SYNTHETIC_HEADER } from '../engine/live/synthetic-data.js'

/**
 * The export's response once the server answered 200 (else a CliError with the server's message); warns on
 * stderr when the server labels the export synthetic.
 */
export async function requestExport(
  url: string,
  key: string,
  io: Io,
  signal: AbortSignal
): Promise<{ res: Response & { body: ReadableStream<Uint8Array> }; synthetic: boolean }> {
  let res: Response
  try {
    res = await fetch(url, { headers: { 'x-api-key': key }, signal })
  } catch (err) {
    throw new CliError(`cannot reach the server at ${new URL(url).origin} (is it running?)`, 1, { cause: err })
  }
  if (!res.ok || !res.body) {
    const text = await res.text()
    let message = `the server answered HTTP ${res.status}`
    try {
      message = (JSON.parse(text) as { error: { message: string } }).error.message
    } catch {
      // not the JSON envelope: keep the status line
    }
    throw new CliError(message)
  }
  const synthetic = res.headers.get(SYNTHETIC_HEADER) === 'true'
  if (synthetic) {
    io.err(
      `tidewatch: warning: the server holds SYNTHETIC demo data (${SYNTHETIC_HEADER}): this export is not market data; do not trade on it\n`
    )
  }
  return { res: res as Response & { body: ReadableStream<Uint8Array> }, synthetic }
}
