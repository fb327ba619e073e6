/**
 * @module
 * The `whale.transfer` webhook event (catalog/webhook-events.ts): each live whale-transfer row worth at
 * least the `high` significance threshold ($2.5M by default), as it is applied to the live state. Rows a
 * rebuild reads back from the store are not news and emit nothing. The event id is the whale event id of
 * the row (`chain:tx_hash:log_index:address`), so a row ingested twice gives deliveries with the same
 * `webhook-id`.
 */
import { WHALE_TRANSFER, type WhaleTransferPayload } from '../../catalog/webhook-events.js'
import type { LiveObserver } from '../live/live-state.js'
import type { NormalizedRecord, WhaleTransferRecord } from '../records/types.js'
import type { WebhookEvent } from '../webhooks/event.js'
import { decimalsUnknownOf } from './tx-events.js'
import { atLeast, DEFAULT_THRESHOLDS, significanceOf, type SignificanceThresholds } from './significance.js'

/** The event of one row, or null below the `high` threshold. */
export function whaleTransferEvent(
  r: WhaleTransferRecord,
  thresholds: SignificanceThresholds = DEFAULT_THRESHOLDS
): WebhookEvent | null {
  const significance = significanceOf(r.usd_value, thresholds)
  if (significance === null || !atLeast(significance, 'high')) return null
  const payload: WhaleTransferPayload = {
    symbol: r.token,
    chain: r.chain,
    direction: r.event_type,
    amount: r.amount,
    // a row keeps one token: an unlisted token's side is named by its address (tx-events.ts)
    decimals_unknown: decimalsUnknownOf(r.token, null) === 'token' ? 'token' : null,
    usd_value: r.usd_value,
    significance: significance as 'high' | 'critical',
    address: r.address,
    counterparty: r.counterparty,
    tx_hash: r.tx_hash,
    log_index: r.log_index,
    block_number: r.block_number
  }
  return { id: `${r.chain}:${r.tx_hash}:${r.log_index}:${r.address}`, type: WHALE_TRANSFER.name, ts: r.ts, payload }
}

/** Observes the live state and hands each qualifying whale-transfer row to `emit` (the webhook outbox). */
export class WhaleTransferEvents implements LiveObserver {
  constructor(
    private readonly emit: (e: WebhookEvent) => void,
    private readonly thresholds: SignificanceThresholds = DEFAULT_THRESHOLDS
  ) {}

  apply(records: readonly NormalizedRecord[]): void {
    for (const r of records) {
      if (r.kind !== 'whale_transfer') continue
      const e = whaleTransferEvent(r, this.thresholds)
      if (e !== null) this.emit(e)
    }
  }

  async rebuilt(): Promise<void> {}
}
