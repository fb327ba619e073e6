import { describe, expect, it } from 'vitest'
import { CHAINS, type WhaleTransferRecord } from '../../engine/records/types.js'
import { whaleSummary } from '../../engine/whales/summary.js'

const NOW = Date.UTC(2025, 0, 2)
const HOUR = 3_600_000
const MIN = 60_000

let tx = 0
function row(p: Partial<WhaleTransferRecord>): WhaleTransferRecord {
  tx += 1
  return {
    kind: 'whale_transfer',
    ts: NOW - HOUR,
    chain: 'ethereum',
    tx_hash: `0x${tx}`,
    log_index: 0,
    block_number: 100,
    address: '0xA',
    counterparty: '0xC',
    event_type: 'transfer_in',
    token: 'USDC',
    amount: 1,
    usd_value: 1_000_000,
    ...p
  }
}

describe('whaleSummary', () => {
  const route = row({ ts: NOW - 2 * HOUR, event_type: 'transfer_out', usd_value: 600_000 })
  const rows = [
    // ethereum: A in 1M; A out 600k as a 2-leg route; B in 3M + out 3.05M 5 min later = one wash loop of 3M (in)
    row({}),
    route,
    { ...route, log_index: 1, usd_value: 590_000 },
    row({ address: '0xB', ts: NOW - 3 * HOUR, usd_value: 3_000_000 }),
    row({ address: '0xB', ts: NOW - 3 * HOUR + 5 * MIN, usd_value: 3_050_000, event_type: 'transfer_out' }),
    // bsc: C swap 2M, C out 150k; D in 50k is below low (counted nowhere but in total_whales_tracked)
    row({ chain: 'bsc', address: '0xC', ts: NOW - 4 * HOUR, event_type: 'swap', usd_value: 2_000_000 }),
    row({ chain: 'bsc', address: '0xC', ts: NOW - 5 * HOUR, event_type: 'transfer_out', usd_value: 150_000 }),
    row({ chain: 'bsc', address: '0xD', usd_value: 50_000 }),
    // solana: F in 500k, out 496k 30 min later (too late for a loop): |net| 4k < 1% of 996k, neutral
    row({ chain: 'solana', address: 'F', usd_value: 500_000 }),
    row({ chain: 'solana', address: 'F', ts: NOW - 30 * MIN, event_type: 'transfer_out', usd_value: 496_000 }),
    // polygon: G in 505k, out 495k 4h apart: |net| 10k is exactly 1% of 1M, so not neutral
    row({ chain: 'polygon', address: '0xG', ts: NOW - 6 * HOUR, usd_value: 505_000 }),
    row({ chain: 'polygon', address: '0xG', ts: NOW - 2 * HOUR, event_type: 'transfer_out', usd_value: 495_000 }),
    // E is 25h old: tracked, not active; tron is not one of the 8 chains: ignored entirely
    row({ chain: 'solana', address: 'E', ts: NOW - 25 * HOUR }),
    row({ chain: 'tron', address: 'T' })
  ]
  const s = whaleSummary(rows, NOW)

  it('counts collapsed events and their volume per chain, every chain present', () => {
    expect(Object.keys(s.chain_counts)).toEqual([...CHAINS])
    expect(s.chain_counts.ethereum).toEqual({ event_count: 3, volume_usd: 4_600_000 })
    expect(s.chain_counts.bsc).toEqual({ event_count: 2, volume_usd: 2_150_000 })
    expect(s.chain_counts.solana).toEqual({ event_count: 2, volume_usd: 996_000 })
    expect(s.chain_counts.polygon).toEqual({ event_count: 2, volume_usd: 1_000_000 })
    expect(s.chain_counts.base).toEqual({ event_count: 0, volume_usd: 0 })
    expect(s.total_volume_24h).toBe(8_746_000)
  })

  it('nets transfer_in against transfer_out per chain, ignoring swaps', () => {
    expect(s.net_flows.ethereum).toEqual({ inflow: 4_000_000, outflow: 600_000, net: 3_400_000, direction: 'inflow' })
    expect(s.net_flows.bsc).toEqual({ inflow: 0, outflow: 150_000, net: -150_000, direction: 'outflow' })
    expect(s.net_flows.solana).toEqual({ inflow: 500_000, outflow: 496_000, net: 4_000, direction: 'neutral' })
    expect(s.net_flows.polygon).toEqual({ inflow: 505_000, outflow: 495_000, net: 10_000, direction: 'inflow' })
    expect(s.net_flows.arbitrum).toEqual({ inflow: 0, outflow: 0, net: 0, direction: 'neutral' })
  })

  it('ranks top movers by collapsed 24h volume and counts wallets', () => {
    expect(s.top_movers).toEqual([
      { address: '0xB', chain: 'ethereum', volume_usd_24h: 3_000_000, event_count_24h: 1 },
      { address: '0xC', chain: 'bsc', volume_usd_24h: 2_150_000, event_count_24h: 2 },
      { address: '0xA', chain: 'ethereum', volume_usd_24h: 1_600_000, event_count_24h: 2 },
      { address: '0xG', chain: 'polygon', volume_usd_24h: 1_000_000, event_count_24h: 2 },
      { address: 'F', chain: 'solana', volume_usd_24h: 996_000, event_count_24h: 2 }
    ])
    expect(s.active_wallets).toBe(5)
    expect(s.total_whales_tracked).toBe(7)
    expect(s.as_of).toBe('2025-01-02T00:00:00.000Z')
  })

  it('keeps the 10 largest movers, ties by chain then address', () => {
    const many = Array.from({ length: 12 }, (_, i) =>
      row({ address: `0x${String(i).padStart(2, '0')}`, usd_value: i < 4 ? 700_000 : 200_000 + i })
    )
    const top = whaleSummary(many, NOW).top_movers.map((m) => m.address)
    expect(top).toEqual(['0x00', '0x01', '0x02', '0x03', '0x11', '0x10', '0x09', '0x08', '0x07', '0x06'])
  })

  it('starts the window exactly 24h before now', () => {
    const edge = [row({ ts: NOW - 24 * HOUR }), row({ ts: NOW - 24 * HOUR - 1, address: '0xZ' })]
    const e = whaleSummary(edge, NOW)
    expect([e.chain_counts.ethereum.event_count, e.active_wallets, e.total_whales_tracked]).toEqual([1, 1, 2])
  })
})
