/**
 * Two or more built trees' webhook outboxes in ONE process, alternating rounds, CPU µs per delivery of the
 * whole process (main thread, libuv, the embedded engine's threads): a same-run comparison of a change
 * against a reference build that a loaded machine disturbs far less than separate processes do
 * (docs/webhooks.md, "What the plain forms cost the sender").
 *
 *   npm run build && node bench/webhooks/compare-trees.mjs <rounds> <reference tree> <this tree>
 *
 * Each tree is a checkout with its `dist/` built (e.g. a reference commit's worktree). The trees share one
 * real chDB store, opened with the last tree's modules and migrations (list the newest last); each tree's
 * webhook tables are copies of that store's, prefixed per tree, and its SQL rewritten to them. The
 * transport answers 200 on the next turn (no sockets: this measures the outbox, its journals and the
 * store, not the HTTP client). Env: AB_N deliveries per round (default 50,000, one journal segment),
 * AB_STORED=0 for a store that keeps nothing. One webhook, one delivery per signal event, at most 10,000
 * waiting, 500 events a turn, as bench/webhooks/webhooks.ts publishes them.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
const [roundsS, ...trees] = process.argv.slice(2)
const rounds = Number(roundsS)
const N = Number(process.env.AB_N ?? 50000)
const stored = process.env.AB_STORED !== '0'
// the store and its migrations: the last tree's (the newest schema)
const storeTree = trees[trees.length - 1]
const { ChdbStore } = await import(`${storeTree}/dist/engine/store/chdb/chdb-store.js`)
const { migrate } = await import(`${storeTree}/dist/engine/schema/migrate.js`)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-ab2-'))
const real = stored ? new ChdbStore({ path: path.join(dir, 'db'), poolSize: 2 }) : null
if (real) await migrate(real, {})
const TABLES = /\b(webhooks|webhook_deliveries|webhook_attempts|webhook_events)\b/g
function prefixed(p) {
  if (!real)
    return {
      kind: 'chdb',
      async command() {},
      async query() {
        return []
      },
      async insert() {},
      async insertFile() {},
      async close() {}
    }
  const fix = (s) => s.replace(TABLES, `${p}$1`)
  return {
    kind: 'chdb',
    command: (sql, params) => real.command(fix(sql), params),
    query: (sql, params) => real.query(fix(sql), params),
    insert: (b) => real.insert({ ...b, table: p + b.table }),
    insertFile: (b) => real.insertFile({ ...b, table: p + b.table }),
    stream: (sql, ...a) => real.stream(fix(sql), ...a),
    close: async () => {}
  }
}
const ok = { status: 200, error: null, durationMs: 0, excerpt: '', retryAfter: null }
const transport = () => ({ send: () => new Promise((res) => setImmediate(() => res(ok))), close: async () => {} })
const kinds = []
let t = 0
for (const tree of trees) {
  const p = `t${t++}_`
  const name = path.basename(tree)
  if (real) {
    const tabs = await real.query(
      `SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN ('webhooks','webhook_deliveries','webhook_attempts','webhook_events')`
    )
    for (const { name: tb } of tabs) {
      const ddl = (
        await real.query(
          `SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = '${tb}'`
        )
      )[0].q
      await real.command(
        ddl
          .replace(new RegExp(`\\.${tb}\\b|\\b${tb} \\(`), (m) => m.replace(tb, p + tb))
          .replace(/^CREATE TABLE/, 'CREATE TABLE IF NOT EXISTS')
      )
    }
  }
  const imp = (m) => import(`${tree}/dist/${m}`)
  const { loadConfig } = await imp('server/config.js').catch(() => imp('engine/config.js'))
  const { silentLogger } = await imp('engine/log.js')
  const { WebhookService } = await imp('engine/webhooks/service.js')
  let seq = 0
  const signal = () => ({
    id: `${name}-${seq++}`,
    event: 'HIGH',
    ts: Date.now(),
    symbol: 'BTC',
    direction: 'long',
    confidence: 'HIGH',
    composite: 0.61803,
    action: 'CONFIRM',
    source: 'engine'
  })
  const dataDir = path.join(dir, p + 'data')
  fs.mkdirSync(dataDir)
  const config = loadConfig({
    DATA_DIR: dataDir,
    SOURCES: 'none',
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_RECEIVER_CONCURRENCY: '16',
    WEBHOOK_MAX_PENDING: '200000',
    WEBHOOK_MAX_PENDING_PER_WEBHOOK: '200000'
  }).webhooks
  const s = await WebhookService.open({ store: prefixed(p), config, dataDir, log: silentLogger(), transport })
  await s.resume()
  await s.registry.create('bench', {
    url: 'https://127.0.0.1:9/fast',
    events: ['*'],
    symbols: ['*'],
    secret: 'bench-secret-0123456789abcdef'
  })
  kinds.push({ name, s, signal, cpu: [] })
}
async function round(k, n) {
  const st = () => k.s.outbox.stats()
  const b = st().delivered
  let pub = 0
  const c = process.cpuUsage()
  while (pub < n) {
    const room = Math.min(500, n - pub, 10000 - (pub - (st().delivered - b)))
    for (let i = 0; i < room; i++) k.s.outbox.onEvent(k.signal())
    pub += Math.max(0, room)
    await new Promise((r) => (room > 0 ? setImmediate(r) : setTimeout(r, 1)))
  }
  while (st().delivered - b < n) await new Promise((r) => setTimeout(r, 2))
  await k.s.outbox.flush()
  const u = process.cpuUsage(c)
  return (u.user + u.system) / n
}
for (const k of kinds) await round(k, N)
const l0 = os.loadavg()[0]
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? kinds : [...kinds].reverse()
  for (const k of order) k.cpu.push(Math.round((await round(k, N)) * 100) / 100)
}
const med = (a) => {
  const s = [...a].sort((x, y) => x - y)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
for (const k of kinds)
  console.log(`AB2 ${k.name} stored=${stored} median ${med(k.cpu).toFixed(2)} µs rounds ${k.cpu.join(' ')}`)
console.log(`load ${l0.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}`)
for (const k of kinds) await k.s.stop(Date.now() + 2000).catch(() => {})
await real?.close()
fs.rmSync(dir, { recursive: true, force: true })
process.exit(0)
