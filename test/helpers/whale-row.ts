import type { WhaleTransferRecord } from '../../engine/records/types.js'

/** A fixed start time for whale test data. */
export const T0 = Date.UTC(2025, 0, 1)
export const MIN = 60_000

/** A whale transfer with defaults (one $1M USDC transfer_out of wallet 0xA on ethereum at T0), overridden by `p`. */
export function whaleRow(p: Partial<WhaleTransferRecord>): WhaleTransferRecord {
  return {
    kind: 'whale_transfer',
    ts: T0,
    chain: 'ethereum',
    tx_hash: '0x1',
    log_index: 0,
    block_number: 100,
    address: '0xA',
    counterparty: '0xC',
    event_type: 'transfer_out',
    token: 'USDC',
    amount: 1_000_000,
    usd_value: 1_000_000,
    ...p
  }
}
