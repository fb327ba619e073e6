/**
 * The chain_whale_events TSV encoder (engine/whales/chain-event-store.ts, chainEventsTsv): bytes written
 * straight into a growing buffer, the ts text reused while consecutive events share a ts. Exact lines for a
 * transfer, a swap with pools and a labelled event needing escapes and UTF-8; a batch larger than the first
 * buffer guess; a ts change between events of the same batch.
 */
import { describe, expect, it } from 'vitest'
import { CHAIN_EVENT_COLUMNS, chainEventsTsv } from '../../engine/whales/chain-event-store.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'
import { CHAIN_TRANSFER } from '../fixtures/evm/whales/chain-event.js'

const base = CHAIN_TRANSFER

const line = (...cells: Array<string | number>): string => cells.join('\t') + '\n'

describe('chainEventsTsv', () => {
  it('writes one exact line per event in CHAIN_EVENT_COLUMNS order, escaping and UTF-8 included', () => {
    const swap: ChainWhaleEvent = {
      ...base,
      event_type: 'swap',
      token: 'BBB',
      amount: 137298,
      token_in: 'ETH',
      amount_in: 265,
      usd_value: null,
      price_source: null,
      hops: 2,
      pools: ['0xp1', '0xp2'],
      repeat_count: 2
    }
    const labelled: ChainWhaleEvent = { ...base, ts: base.ts + 1000, label: 'Bïnance\thot\\1', internal: true }
    const out = chainEventsTsv([base, swap, labelled], 'retracted', 7)
    expect(Buffer.isBuffer(out)).toBe(true)
    const head = [base.chain, base.tx_hash, 3, base.address, 20_000_000, base.block_hash]
    const tail = ['retracted', 7, 1]
    const ts0 = '2026-11-01 00:00:12.007'
    const ts1 = '2026-11-01 00:00:13.007'
    const cp = base.counterparty
    expect(out.toString('utf8')).toBe(
      line(
        ...head,
        ts0,
        cp,
        'transfer_out',
        'USDC',
        2441452.5,
        '\\N',
        '\\N',
        2441452.5,
        'stablecoin',
        0,
        '[]',
        1,
        'false',
        'false',
        '\\N',
        ...tail
      ) +
        line(
          ...head,
          ts0,
          cp,
          'swap',
          'BBB',
          137298,
          'ETH',
          265,
          '\\N',
          '\\N',
          2,
          "['0xp1','0xp2']",
          2,
          'false',
          'false',
          '\\N',
          ...tail
        ) +
        line(
          ...head,
          ts1,
          cp,
          'transfer_out',
          'USDC',
          2441452.5,
          '\\N',
          '\\N',
          2441452.5,
          'stablecoin',
          0,
          '[]',
          1,
          'false',
          'true',
          'Bïnance\\thot\\\\1',
          ...tail
        )
    )
    for (const l of out.toString('utf8').trimEnd().split('\n')) {
      expect(l.split('\t')).toHaveLength(CHAIN_EVENT_COLUMNS.length)
    }
  })

  it('grows past its first size guess and follows ts changes inside a batch', () => {
    const events = Array.from({ length: 5000 }, (_, i) => ({
      ...base,
      log_index: i,
      ts: base.ts + Math.floor(i / 3) * 12_000,
      label: i % 2 ? 'x'.repeat(500) : 'é'.repeat(300)
    }))
    const text = chainEventsTsv(events, 'confirmed', 1).toString('utf8')
    const lines = text.trimEnd().split('\n')
    expect(lines).toHaveLength(5000)
    lines.forEach((l, i) => {
      const cells = l.split('\t')
      expect(cells[2]).toBe(String(i))
      const want = new Date(base.ts + Math.floor(i / 3) * 12_000).toISOString().replace('T', ' ').replace('Z', '')
      expect(cells[6]).toBe(want)
      expect(cells[20]).toBe(i % 2 ? 'x'.repeat(500) : 'é'.repeat(300))
      expect(cells.slice(21)).toEqual(['confirmed', '1', '0'])
    })
  })
})
