/**
 * chain_whale_events writes on chDB (engine/whales/chain-event-store.ts): writeChainEvents sends the batch
 * through the engine reading a short-lived file (Store.insertFile) and removes the file; the rows read back
 * equal the events; the same batch written again is deduplicated; a newer retracted version hides the event
 * under FINAL; a store without insertFile gets the same rows inline; a payload from the split size on goes in
 * as two inserts at once, cut at a line's end, and a failed half rejects only once both settled.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Store } from '../../engine/store/store.js'
import {
  chainEventsIn,
  chainEventsTsv,
  insertChainEventsTsv,
  writeChainEvents
} from '../../engine/whales/chain-event-store.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()

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

/** `p`, or a rejection naming `what` after `ms` */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)
  })
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

const tempFiles = (): string[] =>
  fs.readdirSync(path.join(os.tmpdir(), 'tidewatch-chain-events')).filter((f) => f.startsWith(`${process.pid}-`))

describe('chain_whale_events writes', () => {
  it('goes through the file insert on chDB, reads back equal, dedups a repeated batch, leaves no file', async () => {
    const events = Array.from({ length: 50 }, (_, i) => event(i, 'ethereum'))
    let viaFile = 0
    const spy: Store = Object.assign(Object.create(env.store) as Store, {
      insertFile: (b: Parameters<NonNullable<Store['insertFile']>>[0]) => {
        viaFile++
        expect(fs.existsSync(b.file)).toBe(true)
        return env.store.insertFile(b)
      },
      insert: () => Promise.reject(new Error('the inline insert must not be used on chDB'))
    })
    await writeChainEvents(spy, events, 'confirmed', 1)
    await writeChainEvents(spy, events, 'confirmed', 1)
    expect(viaFile).toBe(2)
    expect(tempFiles()).toEqual([])
    const back = await chainEventsIn(env.store, 'ethereum', 0, 10_000, 'confirmed')
    const key = (e: ChainWhaleEvent): string => `${e.tx_hash}:${e.log_index}:${e.address}`
    expect(back.map(key)).toEqual([...events].sort((a, b) => key(a).localeCompare(key(b))).map(key))
    expect(back).toEqual(expect.arrayContaining(events))
    const [n] = await env.store.query<{ n: number }>(
      "SELECT count() AS n FROM chain_whale_events WHERE chain = 'ethereum'"
    )
    expect(Number(n!.n)).toBe(50)
    await writeChainEvents(env.store, events.slice(0, 10), 'retracted', 2)
    expect(await chainEventsIn(env.store, 'ethereum', 0, 10_000, 'confirmed')).toHaveLength(40)
  })

  it('a large payload goes in as two inserts at once, cut at a line end; a repeat writes nothing twice', async () => {
    // labels with escaped tabs and newlines and a multi-byte character: the cut must fall on a real line end
    const events = Array.from({ length: 31 }, (_, i) => ({
      ...event(i, 'polygon'),
      label: i % 2 ? `desk ï\n${i}\tx` : null
    }))
    const data = chainEventsTsv(events, 'confirmed', 1)
    const parts: Array<{ seq: number; bytes: Buffer }> = []
    // the first insert to arrive waits for the second: both are in flight at once, or this times out
    let arrived = 0
    let second!: () => void
    const bothIn = new Promise<void>((r) => (second = r))
    const spy: Store = Object.assign(Object.create(env.store) as Store, {
      insertFile: async (b: Parameters<NonNullable<Store['insertFile']>>[0]) => {
        // files are numbered in call order (`<pid>-<seq>.tsv`): the first half has the lower number
        parts.push({ seq: Number(/-(\d+)\.tsv$/.exec(b.file)![1]), bytes: fs.readFileSync(b.file) })
        if (++arrived === 2) second()
        else if (arrived === 1) await within(bothIn, 10_000, 'the second half to be inserted alongside the first')
        await env.store.insertFile(b)
      }
    })
    await insertChainEventsTsv(spy, data, 1)
    expect(parts).toHaveLength(2)
    const halves = parts.sort((x, y) => x.seq - y.seq).map((p) => p.bytes)
    for (const h of halves) expect(h.at(-1)).toBe(10)
    expect(Buffer.concat(halves).equals(data)).toBe(true)
    expect(Math.abs(halves[0]!.length - halves[1]!.length)).toBeLessThan(data.length / 4)
    arrived = -10 // the repeat need not pair up
    await insertChainEventsTsv(spy, data, 1)
    const [n] = await env.store.query<{ n: number }>(
      "SELECT count() AS n FROM chain_whale_events WHERE chain = 'polygon'"
    )
    expect(Number(n!.n)).toBe(31)
    expect(await chainEventsIn(env.store, 'polygon', 0, 10_000, 'confirmed')).toEqual(expect.arrayContaining(events))
    // below the split size: one insert
    parts.length = 0
    await insertChainEventsTsv(spy, data)
    expect(parts).toHaveLength(1)
  })

  it('a failed half rejects once the other half has settled', async () => {
    const data = chainEventsTsv(
      Array.from({ length: 12 }, (_, i) => event(i, 'base')),
      'confirmed',
      1
    )
    const order: string[] = []
    let call = 0
    let failed!: () => void
    const hasFailed = new Promise<void>((r) => (failed = r))
    const failing: Store = Object.assign(Object.create(env.store) as Store, {
      insertFile: async (b: Parameters<NonNullable<Store['insertFile']>>[0]) => {
        if (call++ === 1) {
          order.push('failed')
          failed()
          throw new Error('disk full')
        }
        // the good half ends only after the other half's failure had every chance to be reported: a
        // Promise.all would have rejected by then
        await within(hasFailed, 10_000, 'the other half to fail')
        await new Promise((r) => setImmediate(r))
        await env.store.insertFile(b)
        order.push('stored')
      }
    })
    await expect(insertChainEventsTsv(failing, data, 1)).rejects.toThrow('disk full')
    expect(order).toEqual(['failed', 'stored'])
  })

  it('a store without insertFile gets the same rows inline', async () => {
    const events = Array.from({ length: 20 }, (_, i) => event(i, 'bsc'))
    const inline: Store = Object.assign(Object.create(env.store) as Store, { insertFile: undefined })
    await writeChainEvents(inline, events, 'confirmed', 1)
    expect(await chainEventsIn(env.store, 'bsc', 0, 10_000, 'confirmed')).toEqual(expect.arrayContaining(events))
  })
})
