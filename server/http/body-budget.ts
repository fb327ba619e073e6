/**
 * @module
 * The bound on request bodies in flight, across every connection (docs/access.md, "Bodies"):
 * - buffered bodies (every route that takes a body, except spooled ones) share `memoryBytes`: a body with a
 *   declared length reserves it before its first byte is read, a chunked body reserves each piece as it
 *   arrives; a body that does not fit is refused at once (503 `unavailable`, the body not read further)
 *   and its reservation is given back when its request ends;
 * - spooled bodies (admin NDJSON ingest) go to a temp file, never whole into memory: at most `spools` at once
 *   (each holds about SPOOL_BUFFER_BYTES of memory while it is written), others get the same 503.
 * Counters are totals since start, shown in /v1/health as `bodies`.
 */

/** Spooled bodies received at once: admin bulk loads, a few at a time (at most 1 GiB of temp files at 256 MiB). */
export const SPOOLED_BODIES = 4

/** Bytes a spooled body may hold in memory before the socket is paused until the file write drains. */
export const SPOOL_BUFFER_BYTES = 1024 * 1024

export interface BodyCounters {
  /** bytes of buffered bodies reserved now */
  readonly buffered_bytes: number
  /** spooled bodies being written or handled now */
  readonly spooling: number
  /** body bytes read from sockets since start (buffered and spooled) */
  readonly read_bytes: number
  /** requests refused 503 because the budget was full, since start */
  readonly refused_busy: number
}

export class BodyBudget {
  private reserved = 0
  private spooling = 0
  private readBytes = 0
  private refusedBusy = 0

  constructor(
    /** total bytes of buffered bodies at once */
    readonly memoryBytes: number,
    /** spooled bodies at once */
    readonly spools: number
  ) {}

  /** Reserves `bytes` of buffered body; false (and counted as refused) when they do not fit. */
  reserve(bytes: number): boolean {
    if (this.reserved + bytes > this.memoryBytes) {
      this.refusedBusy++
      return false
    }
    this.reserved += bytes
    return true
  }

  release(bytes: number): void {
    this.reserved -= bytes
  }

  /** Takes a spool slot; false (counted as refused) when all are in use. */
  startSpool(): boolean {
    if (this.spooling >= this.spools) {
      this.refusedBusy++
      return false
    }
    this.spooling++
    return true
  }

  endSpool(): void {
    this.spooling--
  }

  /** Counts body bytes taken off a socket. */
  read(bytes: number): void {
    this.readBytes += bytes
  }

  counters(): BodyCounters {
    return {
      buffered_bytes: this.reserved,
      spooling: this.spooling,
      read_bytes: this.readBytes,
      refused_busy: this.refusedBusy
    }
  }
}
