/**
 * @module
 * The recovery of every journal (ingest batches, webhook outbox segments, import statements): at start, the
 * entries a previous process left behind are replayed oldest first, each with what it recorded (its dedup
 * token), and removed once the store acknowledged it. The rules are the same for all:
 *
 * - an incomplete entry (cut short by a crash during its own write) was never sent: it is removed;
 * - a failure the store may recover from (down, disk full) stops the recovery: the entry and those after it
 *   stay for the next start;
 * - a failure that would repeat at every start (bad data) moves the entry to the journal's set-aside
 *   directory (`failed/`), logged, where an operator can read it and move it back to replay it, unless the
 *   journal says such failures stop the recovery too (the import journal: its entries are statements);
 * - a journal may set an entry aside before its replay (`apply` answers `set-aside`), e.g. one too old for
 *   its dedup token to be remembered.
 *
 * Entries are named `<epoch ms>-<pid>-<sequence>` (journalName), so names sort by the time they were made.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../log.js'
import { toStoreError } from '../store/store-error.js'

/** A new entry's name: creation time, process and a per-journal sequence (zero-padded to `pad` digits). */
export function journalName(seq: number, pad = 0): string {
  return `${Date.now()}-${process.pid}-${String(seq).padStart(pad, '0')}`
}

/** The names in `dir` that `keep` accepts, sorted (oldest first); none when the directory is missing. */
export function journalEntries(dir: string, keep: (name: string) => boolean): string[] {
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  return names.filter(keep).sort()
}

/** Moves `file` (an entry file or directory) into `toDir`, made if missing; resolves with its new path. */
export async function setAside(file: string, toDir: string): Promise<string> {
  await fs.promises.mkdir(toDir, { recursive: true })
  const to = path.join(toDir, path.basename(file))
  await fs.promises.rename(file, to)
  return to
}

/** How one journal's entries are read and replayed. */
export interface Replayer<E> {
  /** the entry at `file`; null when it is incomplete (never sent: removed) */
  read(file: string): E | null
  /** replays the entry; `set-aside` when the journal moved it aside itself instead (not removed) */
  apply(entry: E, file: string): Promise<void | 'set-aside'>
  /** after a successful replay, before the entry is removed (a crash in between replays it again) */
  replayed?(entry: E, file: string): Promise<void>
  /** where entries refused for good go; absent: every failure stops the recovery (thrown) */
  readonly failedDir?: string
  /** log lines: an incomplete entry removed, an entry set aside (with `failedDir`), an entry replayed */
  readonly messages: { readonly incomplete: string; readonly refused?: string; readonly replayed: string }
  /** fields of the `replayed` line */
  describe(entry: E, file: string): Record<string, unknown>
}

/**
 * Replays the entries at `files` (oldest first) the way `r` says (module comment); resolves with the
 * entries replayed. Throws the first failure that does not set its entry aside.
 */
export async function replayEntries<E>(files: readonly string[], r: Replayer<E>, log: Logger): Promise<E[]> {
  const done: E[] = []
  for (const file of files) {
    const entry = r.read(file)
    if (entry === null) {
      log.warn({ file }, r.messages.incomplete)
      fs.rmSync(file, { recursive: true, force: true })
      continue
    }
    try {
      if ((await r.apply(entry, file)) === 'set-aside') continue
    } catch (err) {
      if (r.failedDir === undefined || toStoreError(err).retryable) throw err
      const to = await setAside(file, r.failedDir)
      log.error({ file: to, err: (err as Error).message }, r.messages.refused ?? 'journal entry refused; set aside')
      continue
    }
    await r.replayed?.(entry, file)
    fs.rmSync(file, { recursive: true, force: true })
    done.push(entry)
    log.warn(r.describe(entry, file), r.messages.replayed)
  }
  return done
}
