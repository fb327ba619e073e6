/**
 * @module
 * Guards the data directory: it must be ours (a `tidewatch.json` marker) or empty, readable and
 * writable, and not in use by another live process (chDB binds one data directory per process, and two
 * processes writing one directory would corrupt it). A foreign or unreadable directory is refused before
 * anything in it is touched.
 */
import fs from 'node:fs'
import path from 'node:path'

const MARKER = 'tidewatch.json'
const LOCK = 'tidewatch.lock'
/** Layout version of the data directory; bump when an incompatible change needs a migration. */
const DATA_DIR_FORMAT = 1

export class DataDirError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataDirError'
  }
}

/** True when `pid` is a running process (a zombie, killed but not yet reaped, counts as dead). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true // no procfs: trust kill(0)
  }
}

function checkAccess(dir: string): void {
  const st = fs.statSync(dir)
  if (!st.isDirectory()) throw new DataDirError(`DATA_DIR ${dir} is not a directory`)
  try {
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK)
  } catch {
    throw new DataDirError(`DATA_DIR ${dir} is not readable and writable by this process`)
  }
}

function checkOwnership(dir: string): void {
  const marker = path.join(dir, MARKER)
  if (fs.existsSync(marker)) {
    let format: unknown
    try {
      format = (JSON.parse(fs.readFileSync(marker, 'utf8')) as { format?: unknown }).format
    } catch {
      throw new DataDirError(`DATA_DIR ${dir}: ${MARKER} is unreadable or not JSON`)
    }
    if (format !== DATA_DIR_FORMAT) {
      throw new DataDirError(`DATA_DIR ${dir} has data format ${String(format)}; this version reads ${DATA_DIR_FORMAT}`)
    }
    return
  }
  if (fs.readdirSync(dir).length > 0) {
    throw new DataDirError(
      `DATA_DIR ${dir} is not empty and is not a Tidewatch data directory (no ${MARKER}); refusing to use it, nothing was changed`
    )
  }
  fs.writeFileSync(marker, JSON.stringify({ format: DATA_DIR_FORMAT, created: new Date().toISOString() }) + '\n')
}

/** Takes the single-process lock; a lock left by a dead process (e.g. SIGKILL) is taken over. */
function lock(dir: string): () => void {
  const file = path.join(dir, LOCK)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file)
        } catch {
          // already gone
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = Number(fs.readFileSync(file, 'utf8'))
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new DataDirError(`DATA_DIR ${dir} is in use by process ${pid} (stop it, or use its admin API)`)
      }
      fs.unlinkSync(file)
    }
  }
  throw new DataDirError(`DATA_DIR ${dir}: could not take ${LOCK}`)
}

/** Prepares `dir` for use and returns the function that releases its lock. */
export function prepareDataDir(dir: string): () => void {
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true })
  checkAccess(dir)
  checkOwnership(dir)
  return lock(dir)
}
