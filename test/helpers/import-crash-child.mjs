/**
 * A child process for the import crash tests (test/e2e/import-crash.test.ts), over the built code in dist/.
 * chDB binds one data directory per process, so every step on a data directory is its own process:
 *
 *   node import-crash-child.mjs crash DATA_DIR FILE SLICE_ROWS KILL N [VIEW...]
 *     imports FILE with slices of SLICE_ROWS lines and SIGKILLs itself at the N-th slice INSERT (1-based):
 *     KILL = journaled (its journal entry written, the statement not sent), sent (sent, not awaited) or
 *     acked (the store acknowledged it, its journal entry not yet removed). Each VIEW is detached just
 *     before that INSERT (not permanently: the next process re-attaches it), so its level misses what the
 *     statement wrote, as when a crash falls between the raw part and a view's part.
 *   node import-crash-child.mjs import DATA_DIR FILE SLICE_ROWS   a plain import, then prints as dump does
 *   node import-crash-child.mjs dump DATA_DIR                     prints trades and every candle level as JSON
 *   node import-crash-child.mjs migrate DATA_DIR                  the schema only (every mode migrates first)
 */
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..')
const dist = (p) => import(path.join(root, 'dist', p))

const [mode, dataDir, file, sliceRows, kill, nth, ...views] = process.argv.slice(2)
const { prepareDataDir } = await dist('engine/store/chdb/data-dir.js')
const { ChdbStore } = await dist('engine/store/chdb/chdb-store.js')
const { migrate } = await dist('engine/schema/migrate.js')
const { importFiles } = await dist('ingest/import/run-import.js')
const { importJournalDir } = await dist('ingest/import/import-journal.js')

const release = prepareDataDir(dataDir)
const store = new ChdbStore({ path: dataDir, poolSize: 2 })
await migrate(store, {})

/** The store, killing the process at the chosen slice INSERT. */
function killing(inner) {
  let inserts = 0
  return {
    kind: inner.kind,
    query: (sql, params) => inner.query(sql, params),
    stream: (...args) => inner.stream(...args),
    insert: (batch) => inner.insert(batch),
    close: () => inner.close(),
    async command(sql, params) {
      const isSlice = sql.startsWith('INSERT INTO ') && !sql.startsWith('INSERT INTO FUNCTION')
      if (!isSlice || ++inserts !== Number(nth)) return inner.command(sql, params)
      for (const view of views) await inner.command(`DETACH TABLE ${view}`)
      if (kill === 'journaled') process.kill(process.pid, 'SIGKILL')
      const sent = inner.command(sql, params)
      if (kill === 'sent') setImmediate(() => process.kill(process.pid, 'SIGKILL'))
      await sent
      process.kill(process.pid, 'SIGKILL')
      await new Promise(() => {})
    }
  }
}

const opts = {
  tmpDir: path.join(dataDir, 'tmp', 'import'),
  journalDir: importJournalDir(dataDir),
  sliceRows: Number(sliceRows)
}
if (mode === 'crash') {
  await importFiles(killing(store), [file], opts)
  throw new Error(`the import ended without reaching INSERT ${nth}`)
} else if (mode === 'import') {
  await importFiles(store, [file], opts)
  await dump()
} else if (mode === 'dump') {
  await dump()
} else if (mode !== 'migrate') {
  throw new Error(`unknown mode ${mode}`)
}
await store.close()
release()

/** Writes trades and every candle level (merged per bucket) to stdout as one JSON object. */
async function dump() {
  const out = {
    trades: await store.query(
      `SELECT toUnixTimestamp64Milli(ts) AS ts, exchange, market, symbol, base, quote, side, price, qty, trade_id
       FROM trades ORDER BY ts, trade_id`
    )
  }
  for (const level of ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1mo']) {
    out[`candles_${level}`] = await store.query(
      `SELECT base, exchange, symbol, toUnixTimestamp(bucket) AS bucket, argMinMerge(open) AS open, max(high) AS high,
         min(low) AS low, argMaxMerge(close) AS close, round(sum(volume_base), 6) AS volume_base,
         round(sum(volume_quote), 4) AS volume_quote, round(sum(buy_volume_base), 6) AS buy_volume_base, sum(trades) AS trades
       FROM candles_${level} GROUP BY base, exchange, symbol, bucket ORDER BY base, exchange, symbol, bucket`
    )
  }
  process.stdout.write(JSON.stringify(out))
}
