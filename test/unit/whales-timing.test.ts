import { describe, expect, it } from 'vitest'
import { CHAINS, type WhaleTransferRecord } from '../../engine/records/types.js'
import { collapseEvents } from '../../engine/whales/collapse.js'
import { pageEvents } from '../../engine/whales/events-page.js'
import { whaleSummary } from '../../engine/whales/summary.js'

const SEED = 20_250_101
const DAY = 86_400_000
const NOW = Date.UTC(2025, 0, 8)

/** mulberry32: a seeded generator, so every run times the same rows */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** one row, every field in the same order: the shape rows parsed from the store's JSON have */
function transfer(
  ts: number,
  chain: string,
  tx_hash: string,
  log_index: number,
  address: string,
  event_type: WhaleTransferRecord['event_type'],
  token: string,
  usd: number
): WhaleTransferRecord {
  const block_number = Math.floor(ts / 12_000)
  const amount = usd
  return {
    kind: 'whale_transfer',
    ts,
    chain,
    tx_hash,
    log_index,
    block_number,
    address,
    counterparty: '0xcp',
    event_type,
    token,
    amount,
    usd_value: usd
  }
}

/** ~20k rows over 7 days, 2000 wallets on 8 chains; ~1 in 5 txs a 2-4 leg route, ~1 in 10 a round trip */
function sevenDays(n: number): WhaleTransferRecord[] {
  const r = rng(SEED)
  const types = ['transfer_in', 'transfer_out', 'swap'] as const
  const rows: WhaleTransferRecord[] = []
  for (let tx = 0; rows.length < n; tx++) {
    const wallet = Math.floor(r() * 2000)
    const ts = NOW - Math.floor(r() * 7 * DAY)
    const chain = CHAINS[wallet % CHAINS.length]!
    const hash = `0x${tx.toString(16).padStart(64, '0')}`
    const address = `0x${wallet.toString(16).padStart(40, '0')}`
    const token = r() < 0.5 ? 'USDC' : 'WETH'
    const type = types[Math.floor(r() * 3)]!
    const usd = 50_000 + Math.floor(r() * 5_000_000)
    const legs = r() < 0.2 ? 2 + Math.floor(r() * 3) : 1
    for (let leg = 0; leg < legs; leg++)
      rows.push(transfer(ts, chain, hash, leg, address, type, token, usd * (1 - leg * 0.01)))
    if (r() < 0.1 && type !== 'swap') {
      const back = type === 'transfer_in' ? 'transfer_out' : 'transfer_in'
      rows.push(transfer(ts + Math.floor(r() * 600_000), chain, `${hash}b`, 0, address, back, token, usd))
    }
  }
  return rows
}

function median(f: () => void): number {
  const times: number[] = []
  for (let i = 0; i < 7; i++) {
    const t = performance.now()
    f()
    times.push(performance.now() - t)
  }
  return times.sort((a, b) => a - b)[3]!
}

describe('whales timing (printed, not asserted)', () => {
  it('collapses, pages and summarizes 20k rows', () => {
    const rows = sevenDays(20_000)
    const events = collapseEvents(rows)
    expect(events.length).toBeGreaterThan(0)
    const collapse = median(() => collapseEvents(rows))
    const page = median(() =>
      pageEvents(events, rows, { chains: [], sinceMs: NOW - 7 * DAY }, { limit: 50, offset: 0 })
    )
    const summary = median(() => whaleSummary(rows, NOW))
    console.log(
      `[whales timing] seed=${SEED} rows=${rows.length} events=${events.length} ` +
        `collapseEvents=${collapse.toFixed(1)}ms pageEvents=${page.toFixed(1)}ms whaleSummary=${summary.toFixed(1)}ms`
    )
  })
})
