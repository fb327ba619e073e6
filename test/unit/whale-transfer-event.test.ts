import { Value } from '@sinclair/typebox/value'
import { describe, expect, it } from 'vitest'
import { WHALE_TRANSFER } from '../../catalog/webhook-events.js'
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { whaleTransferEvent } from '../../engine/whales/whale-transfer-events.js'

const ROW: WhaleTransferRecord = {
  kind: 'whale_transfer',
  ts: Date.UTC(2026, 10, 28, 12),
  chain: 'ethereum',
  tx_hash: '0x5c9a1e0b7d3f4a2e8c6b9d0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
  log_index: 7,
  block_number: 23845120,
  address: '0x3f5ce5fbfe3e9af3971dd833d26ba9b5c936f0be',
  counterparty: '0x903df65bfecf74b0cfccc38d1b565b75f5305668',
  event_type: 'swap',
  token: 'ETH',
  amount: 1000,
  usd_value: 3_000_000
}

const flagOf = (token: string): unknown => {
  const e = whaleTransferEvent({ ...ROW, token })!
  expect(Value.Check(WHALE_TRANSFER.payload, e.payload)).toBe(true)
  return (e.payload as { decimals_unknown: unknown }).decimals_unknown
}

describe('whale.transfer payload: decimals_unknown', () => {
  it('is null for a watch-list symbol', () => {
    expect(flagOf('ETH')).toBeNull()
    expect(flagOf('USDT')).toBeNull()
  })

  it('is token for a token named by its contract address (EVM or Solana mint)', () => {
    expect(flagOf('0x6982508145454ce325ddbe47a25d4ec3d2311933')).toBe('token')
    expect(flagOf('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')).toBe('token')
  })
})
