/**
 * @module
 * Micro-benchmark of the whale read path in memory: collapsing ~20,000 transfer rows of 7 days (2,000
 * wallets on every chain; ~1 in 5 transactions a 2-4 leg route, ~1 in 10 a round trip) into events, paging
 * them, and the 7-day summary. Each is reported as a median time and as a ratio to sorting the same rows by
 * time (the same-run reference: every one of them at least orders the rows once). Seeded, so every run
 * times the same rows.
 */
import { CHAINS, type WhaleTransferRecord } from '../../engine/records/types.js'
import { collapseEvents } from '../../engine/whales/collapse.js'
import { pageEvents } from '../../engine/whales/events-page.js'
import { whaleSummary } from '../../engine/whales/summary.js'
import { median } from '../stats.js'
import { mulberry32 } from '../mulberry32.js'

const SEED = 20_250_101
const DAY = 86_400_000
const NOW = Date.UTC(2025, 0, 8)

const rng = mulberry32

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
  return {
    kind: 'whale_transfer',
    ts,
    chain,
    tx_hash,
    log_index,
    block_number: Math.floor(ts / 12_000),
    address,
    counterparty: '0xcp',
    event_type,
    token,
    amount: usd,
    usd_value: usd
  }
}

/** `n` rows (at least) over 7 days */
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

export function whalesMicro(runs = 15): Record<string, unknown> {
  const rows = sevenDays(20_000)
  const events = collapseEvents(rows)
  const timeOf = (f: () => unknown): number => {
    f() // warm up
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now()
      f()
      times.push(performance.now() - t0)
    }
    return median(times)
  }
  const sort = timeOf(() => [...rows].sort((a, b) => a.ts - b.ts))
  const ms = {
    collapse: timeOf(() => collapseEvents(rows)),
    page: timeOf(() => pageEvents(events, rows, { chains: [], sinceMs: NOW - 7 * DAY }, { limit: 50, offset: 0 })),
    summary: timeOf(() => whaleSummary(rows, NOW))
  }
  const r3 = (n: number): number => Math.round(n * 1000) / 1000
  return {
    seed: SEED,
    rows: rows.length,
    events: events.length,
    sort_reference_median_ms: r3(sort),
    median_ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, r3(v)])),
    over_sort: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round((v / sort) * 100) / 100]))
  }
}
