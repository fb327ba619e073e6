/**
 * @module
 * How the previous run of a data directory ended (`DATA_DIR/last-stop.json`), shown by `/v1/health` as
 * `last_stop`: what a forced exit left unwritten stays visible after the restart, not only in the old log.
 * A start writes `running`; a clean stop overwrites it with `clean`, a forced exit with `forced` and its
 * counts. A start that still finds `running` reports `killed`: the run ended without a word (kill -9, OOM,
 * a crash, power loss), what it lost unknown. Plain synchronous file writes: a forced exit writes its
 * record without touching the store.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Unwritten } from './stop-signals.js'

export interface LastStop {
  readonly kind: 'clean' | 'forced' | 'killed'
  /** when the run ended (ISO 8601 UTC); for `killed`, when it had started */
  readonly at: string
  /** why a forced exit did not wait */
  readonly reason?: string
  /** what a forced exit left unwritten (counts as in its log line) */
  readonly left_unwritten?: Unwritten | null
}

const FILE = 'last-stop.json'

/** The previous run's end, or null on a first start (or an unreadable record); then marks this run `running`. */
export function takeLastStop(dataDir: string): LastStop | null {
  const file = path.join(dataDir, FILE)
  let last: LastStop | null = null
  try {
    const rec = JSON.parse(fs.readFileSync(file, 'utf8')) as { kind: string; at: string }
    last = rec.kind === 'running' ? { kind: 'killed', at: rec.at } : (rec as LastStop)
  } catch {
    last = null // no record: a first start, or a data directory from before the record existed
  }
  writeRecord(dataDir, { kind: 'running', at: new Date().toISOString() })
  return last
}

/** Records how this run ends (called just before the exit). Never throws: the exit goes on regardless. */
export function recordStop(dataDir: string, stop: Omit<LastStop, 'at'>): void {
  try {
    writeRecord(dataDir, { ...stop, at: new Date().toISOString() })
  } catch {
    // a full disk or a removed directory: the next start reports `killed`
  }
}

function writeRecord(dataDir: string, rec: object): void {
  const file = path.join(dataDir, FILE)
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(rec))
  fs.renameSync(`${file}.tmp`, file)
}
