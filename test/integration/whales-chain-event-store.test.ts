/**
 * chain_whale_events rows through the ingest pipeline on chDB (ingest/sources/chain/chain-event-rows.ts): the
 * pipeline's journal hands the batch to the engine as a file (Store.insertFile) and removes its entry; the
 * rows read back equal the events; the same rows handed again are deduplicated; a newer retracted version
 * hides the event under FINAL; the pipeline counts the rows in its health totals; a store without insertFile
 * gets the same rows inline.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { chainEventsIn } from '../../engine/whales/chain-event-store.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { chainEventRows } from '../../ingest/sources/chain/chain-event-rows.js'
import type { ChainEventStatus } from '../../engine/whales/chain-batch-tsv.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()
let journals = 0

const event = (i: number, chain: string): ChainWhaleEvent => ({
  chain,
  tx_hash: `0x${i.toString(16).padStart(64, '0')}`,
  log_index: i % 4,
  block_number: 100 + Math.floor(i / 10),
  block_hash: `0x${'b'.repeat(64)}`,
  ts: Date.UTC(2026, 10, 20, 12) + Math.floor(i / 10) * 12_000,
  address: `0x${i.toString(16).padStart(40, 'a')}`,
  counterparty: `0x${'c'.repeat(40)}`,
  event_type: i % 3 === 0 ? 'swap' : 'transfer_in',
  token: 'USDC',
  amount: 1_000_000 + i,
  token_in: i % 3 === 0 ? 'ETH' : null,
  amount_in: i % 3 === 0 ? 100 + i : null,
  usd_value: i % 5 === 0 ? null : 1_000_000 + i,
  price_source: i % 5 === 0 ? null : 'stablecoin',
  hops: i % 3 === 0 ? 2 : 0,
  pools: i % 3 === 0 ? ['0x01', '0x02'] : [],
  repeat_count: i % 3 === 0 ? 2 : 1,
  circular: false,
  internal: i % 7 === 0,
  label: i % 4 === 0 ? 'Exchange ï\thot' : null
})

/** a pipeline with its journal on `store`; `write` hands events over and waits for the barrier */
function pipelineOn(store: Store) {
  const dir = path.join(env.dir, `chain-journal-${journals++}`)
  const pipeline = new IngestPipeline(
    store,
    { batchRows: 50_000, flushMs: 600_000, queueRows: 500_000 },
    silentLogger(),
    new BatchJournal(dir)
  )
  const write = async (events: readonly ChainWhaleEvent[], status: ChainEventStatus, version: number) => {
    const rows = chainEventRows(events, status, version)!
    await pipeline.push(rows.chunk)
    await pipeline.push({ barrier: true, tables: ['chain_whale_events'] })
  }
  const entries = (): string[] => fs.readdirSync(dir).filter((f) => f.endsWith('.batch'))
  return { pipeline, write, entries }
}

describe('chain_whale_events rows through the ingest pipeline', () => {
  it("go through the journal's file insert on chDB, read back equal, dedup a repeat, count in totals", async () => {
    const events = Array.from({ length: 50 }, (_, i) => event(i, 'ethereum'))
    let viaFile = 0
    const spy: Store = Object.assign(Object.create(env.store) as Store, {
      insertFile: (b: Parameters<NonNullable<Store['insertFile']>>[0]) => {
        if (b.table === 'chain_whale_events') viaFile++
        expect(fs.existsSync(b.file)).toBe(true)
        return env.store.insertFile(b)
      },
      insert: () => Promise.reject(new Error('the inline insert must not be used on chDB'))
    })
    const { pipeline, write, entries } = pipelineOn(spy)
    await write(events, 'confirmed', 1)
    await write(events, 'confirmed', 1)
    expect(viaFile).toBe(2)
    expect(entries()).toEqual([])
    expect(pipeline.totals().tables['chain_whale_events']).toMatchObject({ written: 100, failed: 0, batches: 2 })
    const back = await chainEventsIn(env.store, 'ethereum', 0, 10_000, 'confirmed')
    const key = (e: ChainWhaleEvent): string => `${e.tx_hash}:${e.log_index}:${e.address}`
    expect(back.map(key)).toEqual([...events].sort((a, b) => key(a).localeCompare(key(b))).map(key))
    expect(back).toEqual(expect.arrayContaining(events))
    const [n] = await env.store.query<{ n: number }>(
      "SELECT count() AS n FROM chain_whale_events WHERE chain = 'ethereum'"
    )
    expect(Number(n!.n)).toBe(50)
    await write(events.slice(0, 10), 'retracted', 2)
    expect(await chainEventsIn(env.store, 'ethereum', 0, 10_000, 'confirmed')).toHaveLength(40)
    await pipeline.close(Date.now() + 5_000)
  })

  it('a store without insertFile gets the same rows inline', async () => {
    const events = Array.from({ length: 20 }, (_, i) => event(i, 'bsc'))
    const inline: Store = Object.assign(Object.create(env.store) as Store, { insertFile: undefined })
    const { pipeline, write } = pipelineOn(inline)
    await write(events, 'confirmed', 1)
    expect(await chainEventsIn(env.store, 'bsc', 0, 10_000, 'confirmed')).toEqual(expect.arrayContaining(events))
    await pipeline.close(Date.now() + 5_000)
  })
})
