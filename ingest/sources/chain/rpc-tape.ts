/**
 * @module
 * Record and replay of the chain sources' RPC answers (docs/sources.md, "Recording and replay of RPC
 * answers"), so a problem seen on a user's node can be reproduced offline: with `CHAIN_RECORD_DIR` every
 * answer a chain source gets is appended to `<dir>/<source>.ndjson` (`{"method","params","result"}` per line,
 * 64-bit integers as `{"$bigint":"…"}`), and so is every failed call (`{"method","params","error"}`: the error's
 * text with its causes, its code and status, whether the node answered it), so a node's refusals (a span too
 * wide, a transaction it cannot give) replay as the same errors and the source takes the same path; with
 * `CHAIN_REPLAY_DIR` the source answers from that file instead of the node. Replay matches method and params
 * exactly and hands out the recorded answers of one key in order, repeating the last one (a head polled again
 * stays where the recording ended); a call never recorded fails with `no recorded answer`, which ends the run
 * like a node error would. A torn last line (the recording was copied, or the process killed, mid-write) is
 * left out; a bad line elsewhere is an error naming it. Recording never stops a source: a write that fails (a
 * full disk) is counted in `TapeRecorder.failed` and the answer is used as usual.
 */
import fs from 'node:fs'
import path from 'node:path'

/** JSON.stringify replacer of the tape: 64-bit integers as `{"$bigint":"…"}` */
export const replacer = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? { $bigint: v.toString() } : v)
/** JSON.parse reviver of the tape: `{"$bigint":"…"}` back to a bigint */
export const reviver = (_key: string, v: unknown): unknown =>
  v !== null && typeof v === 'object' && typeof (v as { $bigint?: unknown }).$bigint === 'string'
    ? BigInt((v as { $bigint: string }).$bigint)
    : v

/** the tape file of a source: `evm:ethereum` → `evm-ethereum.ndjson` */
export function tapeFile(dir: string, source: string): string {
  return path.join(dir, `${source.replace(/[^a-z0-9_-]/gi, '-')}.ndjson`)
}

export function tapeKey(method: string, params: readonly unknown[]): string {
  return `${method}:${JSON.stringify(params, replacer)}`
}

/** what a recorded call failed with: enough of the error for the source to take the same path on replay */
export interface TapeError {
  /** the error's message and details, and its causes', joined */
  readonly text: string
  readonly code?: unknown
  readonly status?: unknown
  /** the node answered with an error (it was reachable), as opposed to a transport failure */
  readonly answer?: boolean
}

/** a recorded failure, thrown again on replay */
export class RecordedError extends Error {
  readonly code: unknown
  readonly status: unknown
  readonly answer: boolean

  constructor(e: TapeError) {
    super(e.text)
    this.code = e.code
    this.status = e.status
    this.answer = e.answer === true
  }
}

/** `err` as the tape keeps it: message and details of it and its causes, the first code and status found */
export function tapeError(err: unknown, answer: boolean): TapeError {
  const parts: string[] = []
  let code: unknown
  let status: unknown
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    const x = e as { message?: unknown; details?: unknown; code?: unknown; status?: unknown; cause?: unknown }
    if (typeof x.message === 'string') parts.push(x.message)
    if (typeof x.details === 'string' && x.details !== '') parts.push(x.details)
    code ??= x.code
    status ??= x.status
    e = x.cause
  }
  return {
    text: parts.join(' | ') || String(err),
    ...(code === undefined ? {} : { code }),
    ...(status === undefined ? {} : { status }),
    ...(answer ? { answer } : {})
  }
}

export class TapeRecorder {
  private fd: number
  /** lines that could not be written (a full disk): the answers were used, not recorded */
  failed = 0

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    this.fd = fs.openSync(file, 'a')
  }

  /** appends one answer (synchronously: a crash loses at most the answer being written) */
  record(method: string, params: readonly unknown[], result: unknown): void {
    this.write({ method, params, result })
  }

  /** appends one failed call; `answer`: the node answered it with an error (see TapeError) */
  recordError(method: string, params: readonly unknown[], err: unknown, answer = false): void {
    this.write({ method, params, error: tapeError(err, answer) })
  }

  private write(entry: object): void {
    try {
      fs.writeSync(this.fd, JSON.stringify(entry, replacer) + '\n')
    } catch {
      this.failed += 1 // diagnostics only: never the reason a source stops
    }
  }

  close(): void {
    fs.closeSync(this.fd)
  }
}

type Recorded = { readonly result: unknown } | { readonly error: TapeError }

export class TapePlayer {
  private readonly answers = new Map<string, { list: Recorded[]; next: number }>()
  /** calls answered / calls without a recorded answer */
  played = 0
  missing = 0
  /** a torn last line left out (0 or 1) */
  torn = 0

  constructor(readonly file: string) {
    const lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((text, i) => ({ text, n: i + 1 }))
      .filter((l) => l.text.trim() !== '')
    lines.forEach(({ text, n }, i) => {
      let line: { method: string; params: unknown[]; result?: unknown; error?: TapeError }
      try {
        line = JSON.parse(text, reviver) as typeof line
      } catch {
        if (i === lines.length - 1) {
          this.torn = 1 // the last answer was being written when the file was copied or the process died
          return
        }
        throw new Error(`${file} line ${n}: not a recorded answer`)
      }
      const key = tapeKey(line.method, line.params)
      const entry = this.answers.get(key) ?? { list: [], next: 0 }
      entry.list.push(line.error !== undefined ? { error: line.error } : { result: line.result })
      this.answers.set(key, entry)
    })
  }

  /** the recorded answer, or the recorded failure thrown again (RecordedError) */
  answer<T>(method: string, params: readonly unknown[]): T {
    const entry = this.answers.get(tapeKey(method, params))
    if (entry === undefined) {
      this.missing += 1
      throw new Error(`no recorded answer for ${method} ${JSON.stringify(params, replacer)} in ${this.file}`)
    }
    this.played += 1
    const i = Math.min(entry.next, entry.list.length - 1)
    entry.next += 1
    const recorded = entry.list[i]!
    if ('error' in recorded) throw new RecordedError(recorded.error)
    return recorded.result as T
  }
}
