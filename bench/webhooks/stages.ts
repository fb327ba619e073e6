/**
 * @module
 * Where a webhook delivery's sender CPU goes, stage by stage (docs/webhooks.md, "What the plain forms cost
 * the sender"; `npm run build && node dist/bench/webhooks/stages.js`). Each figure is this process's CPU
 * (main thread, libuv and the embedded engine's threads) per delivery, µs, median of alternating rounds in
 * one process, so the stages see the same load:
 *
 * - `event_and_row`: a signal event into its delivery (the catalog event, matching one webhook) and its
 *   `webhook_deliveries` row (with the payload's JSON text) as a TSV line;
 * - `body`: the delivery body (`JSON.stringify` of type, ts, payload, webhook_id) as bytes;
 * - `signatures`: both signatures (`crypto.createHmac` twice, one cached KeyObject per key);
 * - `four_hashes`: four one-shot SHA-256 over the same bytes, the least two HMACs can cost (an HMAC is two
 *   hashes): what `createHmac`'s object per call adds;
 * - `rows_stored` / `rows_stored_no_payload`: delivery rows through the outbox journal into a real chDB
 *   store (50,000-row segments), with the payload's JSON text and with `{}` in its place (what storing the
 *   opaque payload in each row costs, journal and engine);
 * - `rows_stored_event_table`: the payload once per event in a table of its own instead, one delivery per
 *   event as in bench/webhooks (what that storage shape costs when events do not fan out).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { tsvEncoder } from '../../engine/runtime/tsv-row.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { benchSignal } from './bench-event.js'
import {
  deliveredEvent,
  deliveryRow,
  DELIVERY_COLUMNS,
  newDelivery,
  type Delivery
} from '../../engine/webhooks/delivery.js'
import { symbolOfPayload, webhookEventOf } from '../../engine/webhooks/event.js'
import { TableJournal } from '../../engine/webhooks/journal.js'
import { matching } from '../../engine/webhooks/matching.js'
import { payloadBytes } from '../../engine/webhooks/payload.js'
import { signedHeaders, signingKeyOf } from '../../engine/webhooks/signing.js'
import type { Webhook } from '../../engine/webhooks/webhook.js'
import { median } from '../stats.js'

/** Deliveries per round of the in-memory stages. */
const M = Number(process.env['BENCH_STAGE_DELIVERIES'] ?? 200_000)
/** Delivery rows per round of the stored stages: one 50,000-row segment, as the outbox seals them. */
const STORED = 50_000
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5)

const KEY = signingKeyOf('bench-secret-0123456789abcdef')
const HOOK: Webhook = {
  id: 1,
  keyId: 'bench',
  url: 'https://127.0.0.1/fast',
  events: ['*'],
  symbols: ['*'],
  signingKey: KEY,
  state: 'active',
  stateReason: '',
  createdAt: 0,
  updatedAt: 0,
  failingSince: null
}
const HOOKS = new Map([[1, HOOK]])

const signal = (): SignalEvent => benchSignal('stage')

/** The payload of the rows stored without the payload's text (its text is `{}`). */
const NO_PAYLOAD = {}

/** A delivery as the intake makes it from a signal event (event-intake.ts, without the ledger). */
function delivery(payloadText = true): Delivery {
  const w = webhookEventOf(signal())
  const hook = matching(HOOKS.values(), { type: w.type, symbol: symbolOfPayload(w.payload), key_id: w.key_id })[0]!
  const e = deliveredEvent(w)
  return newDelivery(payloadText ? e : { ...e, payload: NO_PAYLOAD }, hook, 'https://127.0.0.1', Date.now())
}

const encode = tsvEncoder(DELIVERY_COLUMNS)
const SAMPLE = delivery()
const SAMPLE_BODY = payloadBytes(SAMPLE)
const SAMPLE_PAYLOAD_TEXT = JSON.stringify(SAMPLE.payload)
let sink = 0

const memoryStages: Record<string, () => void> = {
  event_and_row: () => {
    sink += encode(deliveryRow(delivery(), 1, Date.now())).length
  },
  body: () => {
    sink += payloadBytes(SAMPLE).length
  },
  signatures: () => {
    sink += signedHeaders(KEY, 'HIGH', SAMPLE.id, Date.now(), SAMPLE_BODY)['webhook-signature'].length
  },
  four_hashes: () => {
    for (let i = 0; i < 4; i++) sink += crypto.hash('sha256', SAMPLE_BODY, 'hex').length
  }
}

function cpuPer(n: number, fn: () => void): number {
  const c = process.cpuUsage()
  for (let i = 0; i < n; i++) fn()
  const u = process.cpuUsage(c)
  return (u.user + u.system) / n
}

async function cpuPerAsync(n: number, fn: () => Promise<void>): Promise<number> {
  const c = process.cpuUsage()
  await fn()
  const u = process.cpuUsage(c)
  return (u.user + u.system) / n
}

export async function stagesBench(rounds: number): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-webhook-stages-'))
  const store = new ChdbStore({ path: dir, poolSize: 2 })
  try {
    await migrate(store, {})
    await store.command(
      `CREATE TABLE bench_webhook_events (event_id String, event_ts DateTime64(3, 'UTC'), payload String)
       ENGINE = MergeTree ORDER BY (event_ts, event_id)`
    )
    const journal = (table: string, columns: readonly string[]): TableJournal =>
      new TableJournal({ store, dir: path.join(dir, 'journal'), table, columns, maxRows: 10 * STORED })
    const rows = journal('webhook_deliveries', DELIVERY_COLUMNS)
    const events = journal('bench_webhook_events', ['event_id', 'event_ts', 'payload'])
    const storedRound = async (shape: 'payload' | 'no_payload' | 'event_table'): Promise<void> => {
      for (let i = 0; i < STORED; i++) {
        const d = delivery(shape === 'payload')
        void rows.push(deliveryRow(d, i, Date.now()))
        if (shape === 'event_table')
          void events.push({ event_id: d.eventId, event_ts: d.eventTs, payload: SAMPLE_PAYLOAD_TEXT })
        // a turn per 500 deliveries, as the bench publishes them
        if (i % 500 === 499) await new Promise((r) => setImmediate(r))
      }
      await Promise.all([rows.flush(), events.flush()])
    }
    const storedStages: Record<string, () => Promise<void>> = {
      rows_stored: () => storedRound('payload'),
      rows_stored_no_payload: () => storedRound('no_payload'),
      rows_stored_event_table: () => storedRound('event_table')
    }
    // warm-up, not reported
    for (const fn of Object.values(memoryStages)) cpuPer(M, fn)
    for (const fn of Object.values(storedStages)) await fn()
    const runs: Record<string, number[]> = {}
    for (let r = 0; r < rounds; r++) {
      for (const [name, fn] of Object.entries(memoryStages)) (runs[name] ??= []).push(cpuPer(M, fn))
      for (const [name, fn] of Object.entries(storedStages)) (runs[name] ??= []).push(await cpuPerAsync(STORED, fn))
      console.log(
        `webhook stages round ${r + 1}: ${Object.keys(runs)
          .map((k) => `${k} ${runs[k]!.at(-1)!.toFixed(2)}`)
          .join(', ')} µs`
      )
    }
    await Promise.all([rows.close(1_000), events.close(1_000)])
    const round2 = (x: number): number => Math.round(x * 100) / 100
    return {
      cpu_us_per_delivery: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.map(round2)])),
      median_cpu_us_per_delivery: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, round2(median(v))])),
      load_average: os.loadavg().map(round2),
      sink: sink > 0
    }
  } finally {
    await store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  console.log(JSON.stringify(await stagesBench(ROUNDS), null, 2))
  process.exit(0)
}
