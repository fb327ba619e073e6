/**
 * @module
 * One line of a recording (gzipped NDJSON, RECORD_DIR): a raw venue message with its receive time.
 *
 *   {"t":1732270000123,"v":"binance","c":"ws","m":{"stream":"btcusdt@aggTrade","data":{...}}}
 *   {"t":1732270000456,"v":"binance","c":"/fapi/v1/openInterest?symbol=BTCUSDT","m":{...}}
 *   {"t":1732270000789,"v":"binance","c":"ws","x":"not json{"}
 *
 * `t` receive time (epoch ms), `v` venue, `c` channel (`ws`, or the REST request path with its query),
 * `m` the message exactly as received (it is JSON, so it is embedded as is, without re-encoding), or `x`
 * the text of a message that was not JSON (kept so a replay counts the same parse errors).
 */

export interface RecordedLine {
  readonly t: number
  readonly v: string
  readonly c: string
  readonly m?: unknown
  readonly x?: string
}

/** The line of a message that parsed as JSON (`text` is valid JSON; its newlines can only be whitespace). */
export function recordedLine(venue: string, channel: string, text: string, recvTs: number): string {
  const body = text.includes('\n') ? text.replace(/\r?\n/g, ' ') : text
  const c = channel === 'ws' ? '"ws"' : JSON.stringify(channel)
  return `{"t":${recvTs},"v":"${venue}","c":${c},"m":${body}}\n`
}

/** The line of a message that was not JSON. */
export function recordedTextLine(venue: string, channel: string, text: string, recvTs: number): string {
  return `{"t":${recvTs},"v":"${venue}","c":${JSON.stringify(channel)},"x":${JSON.stringify(text)}}\n`
}

/** UTC hour of a receive time as used in file names: `2026-11-22T10`. */
export function hourStamp(ts: number): string {
  return new Date(ts).toISOString().slice(0, 13)
}

/** The head of a socket line read by `readWsLine`; one per reader, reused for every line. */
export interface WsLineHead {
  t: number
  v: string
  /** the message text, not parsed */
  body: string
}

const T_PREFIX = '{"t":'
const V_KEY = ',"v":"'
const WS_KEY = '","c":"ws","m":'

/**
 * Reads a socket line `{"t":…,"v":"…","c":"ws","m":…}` as the recorder writes it, without parsing the
 * message (the hot path of a replay); false for any other line, which the caller parses whole.
 */
export function readWsLine(text: string, head: WsLineHead): boolean {
  if (!text.startsWith(T_PREFIX) || text.charCodeAt(text.length - 1) !== 125) return false
  let i = T_PREFIX.length
  let t = 0
  const start = i
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) t = t * 10 + (c - 48)
  if (i === start || !text.startsWith(V_KEY, i)) return false
  i += V_KEY.length
  // same venue as the line before: keep its string instead of slicing a new one
  let v = head.v
  if (!(text.startsWith(v, i) && text.charCodeAt(i + v.length) === 34)) {
    const end = text.indexOf('"', i)
    if (end < 0) return false
    v = text.slice(i, end)
  }
  i += v.length
  if (!text.startsWith(WS_KEY, i)) return false
  head.t = t
  head.v = v
  head.body = text.slice(i + WS_KEY.length, -1)
  return true
}
