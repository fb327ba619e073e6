/**
 * @module
 * Exchange net flow measured from chain events (docs/whales.md): per asset and hour, USD that watched or
 * whale wallets sent to labelled exchange wallets minus USD they received from them. Internal transfers
 * (both sides owned by one exchange), circular routes, swaps and unpriced events are left out. The readings
 * are `exchange_netflow_usd` on-chain metric records (one per asset and hour of a batch or write group,
 * `ts` = the newest event of that hour), summed by the confirmation model over 24 h like any other reading.
 * Only the sender's side of a transfer is counted (its `transfer_out` to an exchange, its `transfer_in`
 * from one), so a transfer seen from both of its wallets is counted once.
 */
import type { OnchainMetricRecord } from '../records/types.js'
import { assetOfToken } from '../history/whale-assets.js'
import type { ChainWhaleEvent } from '../whales/tx-events.js'

const HOUR_MS = 3_600_000

/**
 * The readings of events added in one or more parts (a write group's ranges): the same readings as
 * `exchangeNetflowReadings` of all of them at once. `exchangeOf(address)`: the exchange that owns a wallet
 * (its watch-list owner), or undefined.
 */
export class ExchangeNetflow {
  private readonly sums = new Map<string, { asset: string; ts: number; value: number }>()
  constructor(private readonly exchangeOf: (address: string) => string | undefined) {}

  add(events: readonly ChainWhaleEvent[]): void {
    const { sums, exchangeOf } = this
    for (const e of events) {
      if (e.circular || e.internal || e.usd_value === null || e.event_type === 'swap') continue
      const exchange = exchangeOf(e.counterparty)
      if (exchange === undefined || exchange === exchangeOf(e.address)) continue
      const asset = assetOfToken(e.token)
      const signed = e.event_type === 'transfer_out' ? e.usd_value : -e.usd_value
      const key = `${asset}:${Math.floor(e.ts / HOUR_MS)}`
      const s = sums.get(key)
      if (s === undefined) sums.set(key, { asset, ts: e.ts, value: signed })
      else {
        s.value += signed
        s.ts = Math.max(s.ts, e.ts)
      }
    }
  }

  readings(): OnchainMetricRecord[] {
    return [...this.sums.values()].map((s) => ({
      kind: 'onchain_metric',
      ts: s.ts,
      asset: s.asset,
      metric: 'exchange_netflow_usd',
      value: s.value
    }))
  }
}

/** `exchangeOf(address)`: the exchange that owns a wallet (its watch-list owner), or undefined */
export function exchangeNetflowReadings(
  events: readonly ChainWhaleEvent[],
  exchangeOf: (address: string) => string | undefined
): OnchainMetricRecord[] {
  const netflow = new ExchangeNetflow(exchangeOf)
  netflow.add(events)
  return netflow.readings()
}
