/**
 * @module
 * HTTP status lines (`403 Forbidden`) for uWS `writeStatus`, built once per status.
 */
import { STATUS_CODES } from 'node:http'

const STATUS_LINES = new Map<number, string>()

export function statusLine(status: number): string {
  let line = STATUS_LINES.get(status)
  if (!line) STATUS_LINES.set(status, (line = `${status} ${STATUS_CODES[status] ?? ''}`))
  return line
}
