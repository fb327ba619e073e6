/**
 * @module
 * One import benchmark run in its own process and data directory (chDB binds one directory per process):
 * `node dist/bench/import/variant.js <import|import_staged|ceiling|ceiling_csv|payload> <dataDir> <csv[,csv...]> <tsv> <rows>`. Prints one JSON
 * line (rows/s, and `cpu_s`: CPU-seconds of the process during the run, every thread, so a loaded machine's
 * rounds can be compared by the work they took). Several CSVs (comma-separated) are one `importFiles` run of
 * those files in order.
 *
 * - import: `importFiles` on the aggTrades CSV: the engine reading the CSV into a staging table and one
 *   validation query (and the SHA-256 beside it when a `.CHECKSUM` is there), then INSERT ... SELECT FROM the staging table per slice with the
 *   coverage filter, every view attached; a file that fits one insert block is instead one statement reading
 *   it and checking every row (ingest/import/direct-file.ts).
 * - import_staged: the same with every file staged (`directRows: 0`), for comparison.
 * - ceiling: the same rows as pre-built normalized TSV, one `INSERT INTO trades SELECT * FROM file()` with
 *   the same settings: what the engine takes through the same path, with nothing of ours around it.
 * - ceiling_csv: the CSV itself through the engine's CSV input with the import's conversions and insert
 *   settings, one statement per file, nothing checked (`ceilingCsv`).
 * - payload: the same TSV as insert payloads of 1,000,000 rows (the path of the ingest pipeline and
 *   /v1/admin/ingest), for comparison.
 */
import fs from 'node:fs'
import path from 'node:path'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { DEDUP_INSERT_SETTINGS, FAST_INSERT_SETTINGS } from '../../engine/store/store.js'
import { importFiles } from '../../ingest/import/run-import.js'
import { settingsClause, sqlString } from '../../engine/store/sql-text.js'
import { planFile } from '../../ingest/import/plan-file.js'
import { csvSelect, inputSettings } from '../../ingest/import/stage-sql.js'
import { ONE_BLOCK } from '../../ingest/import/writer.js'

const COLUMNS = ['ts', 'exchange', 'market', 'symbol', 'base', 'quote', 'side', 'price', 'qty', 'trade_id']
const PAYLOAD_ROWS = 1_000_000

async function payload(store: ChdbStore, tsv: string): Promise<void> {
  const buf = fs.readFileSync(tsv)
  let start = 0
  let rows = 0
  let n = 0
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] !== 10) continue
    if (++rows === PAYLOAD_ROWS || i === buf.length - 1) {
      await store.insert({
        table: 'trades',
        columns: COLUMNS,
        format: 'TSV',
        data: buf.subarray(start, i + 1),
        dedupToken: `p${n++}`
      })
      start = i + 1
      rows = 0
    }
  }
}

/**
 * The CSV itself through the engine's CSV input and the layout's conversions to `trades` (the import's
 * `inner` select), one statement per file with the import's insert settings (one block), no rule checked,
 * no coverage, no hash: where the engine stands on the import's own input, against which the import's
 * checks are measured.
 */
async function ceilingCsv(store: ChdbStore, csv: string): Promise<void> {
  const files = csv.split(',')
  for (const [i, file] of files.entries()) {
    const head = Buffer.alloc(4096)
    const fd = fs.openSync(file, 'r')
    const n = fs.readSync(fd, head, 0, head.length, 0)
    fs.closeSync(fd)
    const line = head.subarray(0, n).toString('latin1').split('\n')[0]!
    const plan = planFile(file, file, line)
    const header = /^[a-z]/i.test(line)
    const target = plan.layout.targets[0]!
    const src = { file, gzip: false, header, bytes: fs.statSync(file).size }
    const totals = { rows: 0, minMs: 0, maxMs: 0, markets: new Set<string>(), funding: new Map() }
    const settings = settingsClause({
      ...DEDUP_INSERT_SETTINGS,
      ...FAST_INSERT_SETTINGS,
      ...ONE_BLOCK,
      ...inputSettings(plan.layout, header),
      insert_deduplication_token: `ceiling_csv_${i}`
    })
    await store.command(
      `INSERT INTO ${target.table} (${target.columns.join(', ')}) SELECT ${target.columns.join(', ')} FROM (SELECT ${target.inner} FROM ${csvSelect(plan.layout, src, sqlString)})${settings}`,
      plan.params(totals)
    )
  }
}

async function main(): Promise<void> {
  const [variant, dir, csv, tsv, rowsText] = process.argv.slice(2) as [string, string, string, string, string]
  const store = new ChdbStore({ path: dir, poolSize: 2 })
  await migrate(store, {})
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  if (variant === 'import' || variant === 'import_staged') {
    await importFiles(store, csv.split(','), {
      tmpDir: path.join(dir, 'tmp'),
      journalDir: path.join(dir, 'journal', 'import'),
      ...(variant === 'import_staged' && { directRows: 0 })
    })
  } else if (variant === 'ceiling') {
    const s = settingsClause({
      ...DEDUP_INSERT_SETTINGS,
      ...FAST_INSERT_SETTINGS,
      insert_deduplication_token: 'ceiling'
    })
    await store.command(
      `INSERT INTO trades (${COLUMNS.join(', ')}) SELECT * FROM file(${sqlString(tsv)}, 'TSV', ` +
        `'ts DateTime64(3, \\'UTC\\'), exchange String, market String, symbol String, base String, quote String, side String, price Float64, qty Float64, trade_id String')${s}`
    )
  } else if (variant === 'ceiling_csv') {
    await ceilingCsv(store, csv)
  } else if (variant === 'payload') {
    await payload(store, tsv)
  } else throw new Error(`unknown variant ${variant}`)
  const ms = performance.now() - t0
  // CPU of the whole process (every engine thread with the main one: getrusage), seconds
  const cpu = process.cpuUsage(cpu0)
  const cpuS = Math.round((cpu.user + cpu.system) / 1e4) / 100
  const [check] = await store.query<{ trades: number; candles: number }>(
    'SELECT (SELECT count() FROM trades) AS trades, (SELECT sum(trades) FROM candles_1m) AS candles'
  )
  await store.close()
  const rows = Number(rowsText)
  if (check!.trades !== rows || check!.candles !== rows)
    throw new Error(`${variant} wrote ${JSON.stringify(check)} of ${rows} rows`)
  const rowsPerS = Math.round((rows * 1000) / ms)
  console.log(JSON.stringify({ variant, rows, ms: Math.round(ms), rows_per_s: rowsPerS, cpu_s: cpuS }))
}

void main()
