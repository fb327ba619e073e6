/**
 * Recycled sink buffers (engine/whales/sink-pool.ts, byte-sink.ts): a released buffer serves the next sink,
 * only the pool's own buffers are ever kept (never a foreign buffer or one of Node's shared slabs), each at
 * most once, within the pool's bounds; a sink that outgrows its buffer hands it back only if no view of it
 * was given out; and bytes encoded into a reused buffer (stale content from an earlier batch) equal those
 * encoded into a fresh one.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ByteSink } from '../../engine/whales/byte-sink.js'
import { encodeChainBatch } from '../../engine/whales/chain-batch-tsv.js'
import {
  allocSinkBuffer,
  clearSinkPool,
  releaseSinkBytes,
  sinkPoolFree,
  sinkPoolStats
} from '../../engine/whales/sink-pool.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'

const MiB = 1024 * 1024

function event(i: number, label: string | null): ChainWhaleEvent {
  return {
    chain: 'ethereum',
    tx_hash: `0x${i.toString(16).padStart(64, '0')}`,
    log_index: i % 7,
    block_number: 20_000_000 + Math.floor(i / 10),
    block_hash: `0x${'b'.repeat(64)}`,
    ts: Date.UTC(2026, 10, 1) + i * 1000,
    address: `0x${(i % 97).toString(16).padStart(40, '1')}`,
    counterparty: `0x${'2'.repeat(40)}`,
    event_type: i % 3 === 0 ? 'swap' : i % 3 === 1 ? 'transfer_in' : 'transfer_out',
    token: 'USDC',
    amount: 1234.5 + i,
    token_in: i % 3 === 0 ? 'WETH' : null,
    amount_in: i % 3 === 0 ? 0.25 * i : null,
    usd_value: i % 5 === 0 ? null : 1_000_000 + i / 8,
    price_source: i % 5 === 0 ? null : 'stablecoin',
    hops: i % 3,
    pools: i % 3 === 0 ? [`0x${'9'.repeat(40)}`] : [],
    repeat_count: 1 + (i % 4),
    circular: i % 11 === 0,
    internal: i % 13 === 0,
    label
  }
}

beforeEach(() => clearSinkPool())
afterEach(() => clearSinkPool())

describe('sink pool', () => {
  it('hands a released buffer to the next request it fits, the smallest that fits first', () => {
    const big = allocSinkBuffer(4 * MiB)
    const small = allocSinkBuffer(2 * MiB)
    releaseSinkBytes(big.subarray(0, 10))
    releaseSinkBytes(small)
    expect(sinkPoolFree()).toEqual({ buffers: 2, bytes: 6 * MiB })
    // 1.5 MiB: both fit; the 2 MiB one is taken
    expect(allocSinkBuffer(1.5 * MiB).buffer).toBe(small.buffer)
    expect(allocSinkBuffer(3 * MiB).buffer).toBe(big.buffer)
    expect(sinkPoolFree().buffers).toBe(0)
    // nothing free fits: a new buffer
    expect(allocSinkBuffer(1024).buffer).not.toBe(big.buffer)
  })

  it('keeps only its own buffers, each once, within its bounds', () => {
    const ignored = sinkPoolStats.ignored
    releaseSinkBytes(Buffer.alloc(4096)) // foreign
    releaseSinkBytes(Buffer.from('a shared 8 KB slab')) // Node's pool: other buffers live in it
    releaseSinkBytes(new Uint8Array(64))
    expect(sinkPoolFree().buffers).toBe(0)
    const own = allocSinkBuffer(MiB)
    releaseSinkBytes(own)
    releaseSinkBytes(own.subarray(5)) // the same memory again
    expect(sinkPoolFree().buffers).toBe(1)
    expect(sinkPoolStats.ignored - ignored).toBe(4)
    clearSinkPool()
    // 8 buffers at most: the ones released longest ago go first
    const many = Array.from({ length: 10 }, () => allocSinkBuffer(MiB))
    for (const b of many) releaseSinkBytes(b)
    expect(sinkPoolFree().buffers).toBe(8)
    const held = new Set<ArrayBufferLike>()
    for (let i = 0; i < 8; i++) held.add(allocSinkBuffer(MiB).buffer)
    expect(held.has(many[0]!.buffer) || held.has(many[1]!.buffer)).toBe(false)
    expect(held.has(many[9]!.buffer) && held.has(many[2]!.buffer)).toBe(true)
    clearSinkPool()
    // 256 MiB of free bytes at most: a newer large buffer displaces the older ones
    const huge = Array.from({ length: 3 }, () => allocSinkBuffer(100 * MiB))
    for (const b of huge) releaseSinkBytes(b)
    expect(sinkPoolFree()).toEqual({ buffers: 2, bytes: 200 * MiB })
    expect(allocSinkBuffer(100 * MiB).buffer).not.toBe(huge[0]!.buffer)
    clearSinkPool()
    // eight small buffers no range asks for any more do not keep a range's buffer out
    for (let i = 0; i < 8; i++) releaseSinkBytes(allocSinkBuffer(1024))
    const range = allocSinkBuffer(16 * MiB)
    releaseSinkBytes(range)
    expect(allocSinkBuffer(15 * MiB).buffer).toBe(range.buffer)
    // larger than all the pool may hold: never kept
    releaseSinkBytes(allocSinkBuffer(300 * MiB))
    expect(sinkPoolFree().bytes).toBeLessThanOrEqual(256 * MiB)
  })

  it('does not give a small request a far larger buffer', () => {
    const range = allocSinkBuffer(16 * MiB)
    releaseSinkBytes(range)
    expect(allocSinkBuffer(2048).buffer).not.toBe(range.buffer)
    expect(sinkPoolFree().buffers).toBe(1)
    expect(allocSinkBuffer(5 * MiB).buffer).toBe(range.buffer)
  })

  it('a sink that outgrows its buffer hands it back only when no view of it was given out', () => {
    const sink = new ByteSink(1024)
    sink.raw('x'.repeat(1000))
    sink.raw('y'.repeat(100)) // grows: the first buffer is free again
    expect(sinkPoolFree().buffers).toBe(1)
    clearSinkPool()
    const shared = new ByteSink(1024)
    shared.raw('a'.repeat(300)) // reserves 900 bytes (3 per unit): no growth yet
    const view = shared.bytes()
    shared.raw('b'.repeat(300)) // grows after bytes(): the caller still reads the old buffer
    expect(sinkPoolFree().buffers).toBe(0)
    expect(view.toString()).toBe('a'.repeat(300))
    expect(shared.bytes().toString()).toBe('a'.repeat(300) + 'b'.repeat(300))
  })

  it('bytes encoded into a reused buffer equal those encoded into a fresh one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 400 }),
        fc.option(fc.constantFrom('Binance 14', 'tab\there')),
        (a, b, label) => {
          clearSinkPool()
          const first = Array.from({ length: a }, (_, i) => event(i * 7 + 1, label))
          const second = Array.from({ length: b }, (_, i) => event(i * 3 + 5, null))
          const fresh = encodeChainBatch(second, 'confirmed', 9, {})
          const want = { events: Buffer.from(fresh.events), transfers: Buffer.from(fresh.transfers!) }
          clearSinkPool()
          // the first batch fills buffers with its own bytes, then hands them back
          const old = encodeChainBatch(first, 'pending', 3, {})
          releaseSinkBytes(old.events)
          releaseSinkBytes(old.transfers!)
          const reused = encodeChainBatch(second, 'confirmed', 9, {})
          expect(reused.events.equals(want.events)).toBe(true)
          expect(reused.transfers!.equals(want.transfers)).toBe(true)
        }
      ),
      { numRuns: 60 }
    )
  })
})
