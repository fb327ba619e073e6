/**
 * @module
 * `node dist/bench/asof/series-breakdown.js <dataDir> [rounds]`: where the time of `confirmSeries` over 30
 * days at 1 h (720 steps, BTC, the asof bench's case) goes, on a demo data dir. An empty or missing
 * `dataDir` is first backfilled with BENCH_ASOF_DAYS (default 31) days by the built server and kept, so
 * later runs reuse it. Per round, alternating:
 * - the whole call on the real store (wall ms);
 * - each store call: label (its tables), start and end relative to the call's start (ms), rows, and an
 *   estimate of its JSON decoding (the rows re-encoded as JSONEachRow text and parsed again, ms);
 * - the same call on a store that replays the rows of the first round from memory: the JS of the run
 *   (decoding aside: the grouping, sweeps and the step walk), with no store time.
 * Steps end at the hour before the data dir's newest trade, as in bench/asof/asof.ts. Figures are wall
 * times on whatever else runs: compare them within one run.
 */
import fs from 'node:fs'
import os from 'node:os'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { median } from '../stats.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { parseJsonEachRow } from '../../engine/store/json-rows.js'
import { nativeBlocks } from '../../engine/export/native-blocks.js'
import type { Params, Store } from '../../engine/store/store.js'
import { confirmSeries } from '../../engine/asof/confirm-at.js'

const HOUR = 3_600_000
const PORT = 19219
const STEPS = 720

/** CPU time of this process (the engine's threads included), ms. */
const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

interface Call {
  readonly label: string
  readonly startMs: number
  readonly endMs: number
  readonly rows: number
  /** the query's key in the recorded rows */
  readonly key: string
  readonly sql: string
  readonly params: Params | undefined
  /** the output format of a stream; undefined: a query */
  readonly format?: string
}

/** The tables a statement reads, as its label. */
const labelOf = (sql: string): string =>
  [...new Set([...sql.matchAll(/\bFROM\s+([a-z_0-9]+)/gi)].map((m) => m[1]!))].join('+') || sql.slice(0, 40)

const keyOf = (sql: string, params?: Params): string => `${sql}\n${JSON.stringify(params ?? {})}`

/** What a recorded call gave: rows of a query, or the chunks of a stream. */
type Recorded = { readonly rows: unknown[] } | { readonly chunks: Uint8Array[] }

/** A store recording each query and stream (and what it gave) around a real one. */
function timedStore(inner: Store, calls: Call[], t0: () => number, recorded: Map<string, Recorded>): Store {
  return {
    kind: inner.kind,
    command: (sql, params) => inner.command(sql, params),
    insert: (batch) => inner.insert(batch),
    close: () => inner.close(),
    query: async <T>(sql: string, params?: Params): Promise<T[]> => {
      const start = performance.now() - t0()
      const out = await inner.query<T>(sql, params)
      const end = performance.now() - t0()
      const key = keyOf(sql, params)
      calls.push({ label: labelOf(sql), startMs: start, endMs: end, rows: out.length, key, sql, params })
      recorded.set(key, { rows: out })
      return out
    },
    stream: async function* (sql: string, params: Params | undefined, format: string): AsyncIterable<Uint8Array> {
      const start = performance.now() - t0()
      const chunks: Uint8Array[] = []
      for await (const c of inner.stream(sql, params, format)) chunks.push(c)
      const end = performance.now() - t0()
      const key = keyOf(sql, params)
      const bytes = chunks.reduce((n, c) => n + c.length, 0)
      calls.push({
        label: `${labelOf(sql)} (${format}, ${bytes} bytes)`,
        startMs: start,
        endMs: end,
        rows: -1,
        key,
        sql,
        params,
        format
      })
      recorded.set(key, { chunks })
      yield* chunks
    }
  }
}

/** A store answering each query and stream with what was recorded for it (no store time at all). */
function replayStore(inner: Store, recorded: Map<string, Recorded>): Store {
  const get = (sql: string, params: Params | undefined): Recorded => {
    const r = recorded.get(keyOf(sql, params))
    if (!r) throw new Error(`not recorded: ${labelOf(sql)}`)
    return r
  }
  return {
    kind: inner.kind,
    command: (sql, params) => inner.command(sql, params),
    insert: (batch) => inner.insert(batch),
    close: () => inner.close(),
    // a copy: the replay must not share arrays between rounds
    query: <T>(sql: string, params?: Params): Promise<T[]> => {
      const r = get(sql, params)
      return Promise.resolve('rows' in r ? ([...r.rows] as T[]) : [])
    },
    stream: async function* (sql: string, params: Params | undefined): AsyncIterable<Uint8Array> {
      const r = get(sql, params)
      if ('chunks' in r) yield* r.chunks
    }
  }
}

async function ensureData(dir: string): Promise<void> {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) return
  fs.mkdirSync(dir, { recursive: true })
  const days = process.env['BENCH_ASOF_DAYS'] ?? '31'
  const started = Date.now()
  const server = await startBenchServer(PORT, { SIM_BACKFILL_DAYS: days }, (h) => h.sources[0]?.phase === 'live', dir, {
    keepDir: true
  })
  void BENCH_ADMIN
  await server.stop()
  console.log(`backfilled ${days} days into ${dir} in ${Math.round((Date.now() - started) / 1000)} s`)
}

/**
 * ms to decode what a call gave: rows re-encoded as JSONEachRow text and parsed, or a Native stream's blocks
 * decoded again: about what the store's decoding of them costs.
 */
async function decodeEstimate(r: Recorded): Promise<number> {
  if ('chunks' in r) {
    // a Native stream: its blocks decoded into columns again
    const t0 = performance.now()
    for await (const block of nativeBlocks(
      (async function* () {
        yield* r.chunks
      })()
    ))
      void block
    return performance.now() - t0
  }
  const text = r.rows.map((x) => JSON.stringify(x)).join('\n')
  const t0 = performance.now()
  parseJsonEachRow(text)
  return performance.now() - t0
}

/** Each call of a round run alone, one after another: median wall and CPU ms of `rounds` runs. */
async function alone(store: Store, calls: readonly Call[], rounds: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const c of calls) {
    const wall: number[] = []
    const cpu: number[] = []
    for (let r = 0; r < rounds; r++) {
      const c0 = cpuMs()
      const t0 = performance.now()
      if (c.format === undefined) await store.query(c.sql, c.params)
      else for await (const chunk of store.stream(c.sql, c.params, c.format)) void chunk
      wall.push(performance.now() - t0)
      cpu.push(cpuMs() - c0)
    }
    out[c.label in out ? `${c.label}#2` : c.label] = { wall_ms: r1(median(wall)), cpu_ms: r1(median(cpu)) }
  }
  return out
}

const r1 = (x: number): number => Math.round(x * 10) / 10

async function main(): Promise<void> {
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: series-breakdown.js <dataDir> [rounds]')
  const rounds = Number(process.argv[3] ?? 5)
  await ensureData(dir)
  const store = new ChdbStore({ path: dir, poolSize: Number(process.env['SERIES_POOL'] ?? 2) })
  try {
    const [last] = await store.query<{ ms: number }>(
      `SELECT toUnixTimestamp64Milli(max(ts)) AS ms FROM trades WHERE base = 'BTC'`
    )
    const end = Math.floor(Number(last!.ms) / HOUR) * HOUR - HOUR
    const steps = Array.from({ length: STEPS }, (_, i) => end - (STEPS - 1 - i) * HOUR)
    const recorded = new Map<string, Recorded>()
    const real: number[] = []
    const realCpu: number[] = []
    const js: number[] = []
    const jsCpu: number[] = []
    const perCall = new Map<string, { ms: number[]; rows: number; decodeMs: number[] }>()
    let timeline: Call[] = []
    let reference = ''
    for (let r = 0; r < rounds; r++) {
      const calls: Call[] = []
      let t0 = 0
      const timed = timedStore(store, calls, () => t0, recorded)
      const c0 = cpuMs()
      t0 = performance.now()
      const a = await confirmSeries(timed, 'BTC', 'long', steps)
      real.push(performance.now() - t0)
      realCpu.push(cpuMs() - c0)
      const text = JSON.stringify(a)
      if (r === 0) reference = text
      else if (text !== reference) throw new Error(`round ${r}: answers differ from round 0`)
      const seen = new Map<string, number>()
      for (const c of calls) {
        // a label's second call in a round is label#2, ...
        const n = (seen.get(c.label) ?? 0) + 1
        seen.set(c.label, n)
        const label = n > 1 ? `${c.label}#${n}` : c.label
        const p = perCall.get(label) ?? { ms: [], rows: c.rows, decodeMs: [] }
        p.ms.push(c.endMs - c.startMs)
        p.decodeMs.push(await decodeEstimate(recorded.get(c.key)!))
        perCall.set(label, p)
      }
      timeline = calls
      const c1 = cpuMs()
      const t1 = performance.now()
      const b = await confirmSeries(replayStore(store, recorded), 'BTC', 'long', steps)
      js.push(performance.now() - t1)
      jsCpu.push(cpuMs() - c1)
      if (JSON.stringify(b) !== reference) throw new Error('the replayed run differs')
    }
    const out = {
      steps: STEPS,
      end: new Date(end).toISOString(),
      rounds,
      total_ms: { median: Math.round(median(real)), runs: real.map(Math.round) },
      total_cpu_ms: { median: Math.round(median(realCpu)), runs: realCpu.map(Math.round) },
      js_only_ms: { median: Math.round(median(js)), runs: js.map(Math.round) },
      js_only_cpu_ms: { median: Math.round(median(jsCpu)), runs: jsCpu.map(Math.round) },
      alone: await alone(store, timeline, rounds),
      calls: Object.fromEntries(
        [...perCall].map(([k, p]) => [
          k,
          { median_ms: r1(median(p.ms)), rows: p.rows, decode_estimate_ms: r1(median(p.decodeMs)) }
        ])
      ),
      last_round_timeline: timeline.map((c) => `${r1(c.startMs)}-${r1(c.endMs)} ms ${c.label} (${c.rows} rows)`),
      loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100)
    }
    console.log(JSON.stringify(out, null, 2))
  } finally {
    await store.close()
  }
}

await main()
