/**
 * @module
 * Record and replay of the chain sources' RPC answers (docs/sources.md, "Recording and replay of RPC
 * answers"), so a problem seen on a user's node can be reproduced offline: with `CHAIN_RECORD_DIR` every
 * answer a chain source gets is appended to `<dir>/<source>.ndjson` (`{"method","params","result"}` per line,
 * 64-bit integers as `{"$bigint":"…"}`); with `CHAIN_REPLAY_DIR` the source answers from that file instead of
 * the node. Replay matches method and params exactly and hands out the recorded answers of one key in order,
 * repeating the last one (a head polled again stays where the recording ended); a call never recorded fails
 * with `no recorded answer`, which ends the run like a node error would.
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

export class TapeRecorder {
  private fd: number

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    this.fd = fs.openSync(file, 'a')
  }

  /** appends one answer (synchronously: a crash loses at most the answer being written) */
  record(method: string, params: readonly unknown[], result: unknown): void {
    fs.writeSync(this.fd, JSON.stringify({ method, params, result }, replacer) + '\n')
  }

  close(): void {
    fs.closeSync(this.fd)
  }
}

export class TapePlayer {
  private readonly answers = new Map<string, { list: unknown[]; next: number }>()
  /** calls answered / calls without a recorded answer */
  played = 0
  missing = 0

  constructor(readonly file: string) {
    const text = fs.readFileSync(file, 'utf8')
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      const { method, params, result } = JSON.parse(line, reviver) as {
        method: string
        params: unknown[]
        result: unknown
      }
      const key = tapeKey(method, params)
      const entry = this.answers.get(key) ?? { list: [], next: 0 }
      entry.list.push(result)
      this.answers.set(key, entry)
    }
  }

  answer<T>(method: string, params: readonly unknown[]): T {
    const entry = this.answers.get(tapeKey(method, params))
    if (entry === undefined) {
      this.missing += 1
      throw new Error(`no recorded answer for ${method} ${JSON.stringify(params, replacer)} in ${this.file}`)
    }
    this.played += 1
    const i = Math.min(entry.next, entry.list.length - 1)
    entry.next += 1
    return entry.list[i] as T
  }
}
