/**
 * @module
 * Store errors classified by ClickHouse error code, never by `instanceof` (the chDB adapter and
 * @clickhouse/client build their errors from different copies of the same classes).
 */

export type StoreErrorClass = 'syntax' | 'unknown_object' | 'bad_data' | 'transient' | 'fatal'

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

  get retryable(): boolean {
    return this.errorClass === 'transient'
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kStoreError] === true
  }
}

export function classifyCode(code: number): StoreErrorClass {
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
  if (code !== 0) return new StoreError(message, code, classifyCode(code), err)
  const sys = typeof obj['code'] === 'string' ? obj['code'] : ''
  return new StoreError(message, 0, TRANSIENT_SYSCALL.has(sys) ? 'transient' : 'fatal', err)
}
