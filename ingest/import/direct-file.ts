/**
 * @module
 * Files written by one statement that reads them straight from their staged input, with no staging table:
 * a data.binance.vision file of one market and one target table (aggTrades, fundingRate), a plain CSV once
 * unpacked, of at most DIRECT_MAX_ROWS data rows. That statement (writer.ts, with stage-sql.ts
 * `directSource`) checks every line while it reads and writes the file as one insert block, so a line that
 * breaks a rule fails it before anything is written; the engine parses the file once, where the staging
 * table costs its write and a scan per slice. Its coverage (coverage.ts) is judged over the time range of
 * the file's first and last data line, read here, and the statement refuses a row outside that range or past
 * DIRECT_MAX_ROWS: a file out of time order or larger, like a bad one, is then staged and checked as any
 * other (run-import.ts). Nothing reads the whole file before the statement.
 */
import fs from 'node:fs'
import { MICROS_FROM, type CsvLayout } from './csv-layout.js'
import type { ScanTotals } from './csv-scan.js'
import type { FilePlan } from './plan-file.js'
import { STAGE_IN_MEMORY_MAX_BYTES, type StageSource } from './stage-sql.js'

/**
 * Most data rows of a file written by one direct statement: its rows are one insert block (writer.ts
 * `ONE_BLOCK`, below SLICE_BLOCK_ROWS), about 150 bytes of columns per trade while written, so ~600 MB at
 * this bound (the staging table of a file of the same size holds its columns and a 1,000,000-row block).
 * A busy market's daily aggTrades file (1-4 million trades) is one statement.
 */
export const DIRECT_MAX_ROWS = 4_194_304

/** Bytes read at each end of the file for its first and last data line; a longer line stages the file. */
const EDGE_BYTES = 64 * 1024

/** The bytes of `file` from `at` (at most EDGE_BYTES), as text. */
function readAt(file: string, at: number): string {
  const fd = fs.openSync(file, 'r')
  try {
    const b = Buffer.alloc(EDGE_BYTES)
    return b.subarray(0, fs.readSync(fd, b, 0, EDGE_BYTES, at)).toString('latin1')
  } finally {
    fs.closeSync(fd)
  }
}

/** The row time of a data line (epoch ms), or null when its time cell is not a plain integer. */
function lineTime(layout: CsvLayout, line: string): number | null {
  const cell = line.split(',')[layout.timeColumn]
  if (cell === undefined || !/^\d{1,16}$/.test(cell)) return null
  const n = Number(cell)
  return layout.time === 'micros' || n >= MICROS_FROM ? Math.trunc(n / 1000) : n
}

/** The first and last data line of a plain CSV (`header`: its first line is a header), or null. */
function edgeLines(src: StageSource): [string, string] | null {
  const head = readAt(src.file, 0).split('\n')
  const tail = readAt(src.file, Math.max(0, src.bytes - EDGE_BYTES))
    .replace(/\r?\n$/, '')
    .split('\n')
  const first = head[src.header ? 1 : 0]
  const last = tail.at(-1)
  // a first line cut by EDGE_BYTES has no line after it in `head`; a last one has nothing before it in `tail`
  const whole = head.length > (src.header ? 2 : 1) && (tail.length > 1 || src.bytes <= EDGE_BYTES)
  return whole && first && last ? [first.replace(/\r$/, ''), last.replace(/\r$/, '')] : null
}

/**
 * The totals of a file the direct statement can write (the time range of its first and last data line,
 * which the statement holds every row to), or null when it is staged instead. The file is not read for
 * them: its rows are counted beside the statement (run-import.ts `countLines`), `rows` here is
 * 0, and the statement itself refuses a file of more than `maxRows` data rows (stage-sql.ts
 * `directSource`), which is then staged. A file whose size over its edge lines' mean length says more
 * rows than `maxRows` is staged at once.
 */
export function directTotals(plan: FilePlan, src: StageSource, maxRows: number): ScanTotals | null {
  const { layout } = plan
  const eligible =
    plan.source === 'binance' &&
    layout.targets.length === 1 &&
    layout.marketColumns === undefined &&
    (layout.time === 'epoch' || layout.time === 'micros') &&
    !src.gzip &&
    src.bytes <= STAGE_IN_MEMORY_MAX_BYTES
  if (!eligible) return null
  const edges = edgeLines(src)
  if (!edges) return null
  const [a, b] = edges.map((line) => lineTime(layout, line))
  if (a === null || b === null || a === undefined || b === undefined) return null
  const estimate = src.bytes / ((edges[0].length + edges[1].length) / 2 + 1)
  if (maxRows <= 0 || estimate > maxRows) return null
  return { rows: 0, minMs: Math.min(a, b), maxMs: Math.max(a, b), markets: new Set(), funding: new Map() }
}
