/**
 * @module
 * Store errors classified by ClickHouse error code, never by `instanceof` (the chDB adapter and
 * @clickhouse/client build their errors from different copies of the same classes).
 */

export type StoreErrorClass = 'syntax' | 'unknown_object' | 'bad_data' | 'transient' | 'disk_full' | 'fatal'

/** ClickHouse codes worth retrying: the same statement may succeed a little later. */
const TRANSIENT_CODES = new Set([
  159, // TIMEOUT_EXCEEDED
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  319, // UNKNOWN_STATUS_OF_INSERT
  425, // SYSTEM_ERROR
  999 // KEEPER_EXCEPTION
])
const SYNTAX_CODES = new Set([62]) // SYNTAX_ERROR
const UNKNOWN_CODES = new Set([16, 47, 60, 81]) // NO_SUCH_COLUMN_IN_TABLE, UNKNOWN_IDENTIFIER, UNKNOWN_TABLE, UNKNOWN_DATABASE
const BAD_DATA_CODES = new Set([6, 26, 27, 38, 41, 53, 69, 70, 72, 117, 386]) // parse/type conversion failures
/**
 * The data directory's disk is full: the same statement succeeds once an operator makes room, so it is
 * retried (held) until then, never set aside. 243 NOT_ENOUGH_SPACE is the engine refusing to reserve room
 * for a part (seen on a full tmpfs as `Cannot reserve 7.40 MiB, not enough space: while pushing to view`);
 * a write that ran out of room mid-way surfaces under an I/O code with the system error in its text.
 */
const DISK_FULL_CODE = 243 // NOT_ENOUGH_SPACE
/** I/O codes whose text may carry the system's out-of-space error (errno 28 ENOSPC, 122 EDQUOT). */
const IO_CODES = new Set([
  74, // CANNOT_READ_FROM_FILE_DESCRIPTOR
  75, // CANNOT_WRITE_TO_FILE_DESCRIPTOR
  76, // CANNOT_OPEN_FILE
  173, // CANNOT_ALLOCATE_MEMORY
  1000, // POCO_EXCEPTION
  1001 // STD_EXCEPTION
])
const OUT_OF_SPACE_TEXT = /No space left on device|Disk quota exceeded|errno: (28|122)\b|ENOSPC|EDQUOT/
/** Node file-system errors (the ingest journal's own writes) of a full disk. */
const DISK_FULL_SYSCALL = new Set(['ENOSPC', 'EDQUOT'])
/** Node socket errors from the server adapter: the server may come back. */
const TRANSIENT_SYSCALL = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET'])

const kStoreError = Symbol.for('tidewatch.error.store')

export class StoreError extends Error {
  /** ClickHouse numeric error code, 0 when the failure is not from ClickHouse */
  readonly clickhouseCode: number
  readonly errorClass: StoreErrorClass
  readonly [kStoreError] = true

  constructor(message: string, clickhouseCode: number, errorClass: StoreErrorClass, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'StoreError'
    this.clickhouseCode = clickhouseCode
    this.errorClass = errorClass
  }

  /** Transient failures and a full disk: the same statement may succeed later. */
  get retryable(): boolean {
    return this.errorClass === 'transient' || this.errorClass === 'disk_full'
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kStoreError] === true
  }
}

export function classifyCode(code: number, message = ''): StoreErrorClass {
  if (code === DISK_FULL_CODE || (IO_CODES.has(code) && OUT_OF_SPACE_TEXT.test(message))) return 'disk_full'
  if (TRANSIENT_CODES.has(code)) return 'transient'
  if (SYNTAX_CODES.has(code)) return 'syntax'
  if (UNKNOWN_CODES.has(code)) return 'unknown_object'
  if (BAD_DATA_CODES.has(code)) return 'bad_data'
  return 'fatal'
}

/** Finds a ClickHouse code on an error from either adapter: `clickhouseCode`, numeric `code`, or `Code: N.` text. */
function extractCode(err: Record<string, unknown>, message: string): number {
  for (const key of ['clickhouseCode', 'code']) {
    const v = err[key]
    if (typeof v === 'number' && Number.isInteger(v)) return v
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v)
  }
  const m = /Code: (\d+)\./.exec(message)
  return m ? Number(m[1]) : 0
}

/** Wraps any thrown value from a ClickHouse client into a classified StoreError. */
export function toStoreError(err: unknown): StoreError {
  if (err instanceof StoreError) return err
  const obj = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>
  const message = err instanceof Error ? err.message : String(err)
  const code = extractCode(obj, message)
  if (code !== 0) return new StoreError(message, code, classifyCode(code, message), err)
  const sys = typeof obj['code'] === 'string' ? obj['code'] : ''
  const errorClass = DISK_FULL_SYSCALL.has(sys) ? 'disk_full' : TRANSIENT_SYSCALL.has(sys) ? 'transient' : 'fatal'
  return new StoreError(message, 0, errorClass, err)
}
