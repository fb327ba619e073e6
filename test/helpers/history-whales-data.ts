/**
 * The rows of the whale-history tests (test/integration/history-whales.test.ts), made here once per file from
 * a fixed seed: 30 hourly buckets before the current hour (`B(k)`: the start of the k-th), BTC trades on
 * binance (every hour but each 5th) and okx (even hours), funding and open interest, whale rows in BTC and
 * WBTC (none each 7th hour), noise in ETH and USDT, counterparties among the labelled exchange hot wallets.
 */
import { EXCHANGE_HOT_WALLETS } from '../../engine/whales/exchange-wallets.js'

export const MIN = 60_000
export const HOUR = 60 * MIN
export const DAY = 24 * HOUR
export const H = Math.floor(Date.now() / HOUR) * HOUR
export const B = (k: number) => H - k * HOUR
export interface Whale {
  ts: number
  chain: string
  tx_hash: string
  log_index: number
  block_number: number
  address: string
  counterparty: string
  event_type: 'transfer_in' | 'transfer_out' | 'swap'
  token: string
  amount: number
  usd_value: number
}
export interface Trade {
  ts: number
  exchange: string
  symbol: string
  price: number
  qty: number
}
export interface Funding {
  ts: number
  exchange: string
  symbol: string
  funding_rate: number
  interval_hours: number
}
export interface Oi {
  ts: number
  exchange: string
  symbol: string
  oi_usd: number
}

// deterministic pseudo-random numbers (LCG), so a failure reproduces
let state = 20250101
const rnd = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648

const ETH_HOT = EXCHANGE_HOT_WALLETS.ethereum.map((w) => w.address)
const SOL_HOT = EXCHANGE_HOT_WALLETS.solana[0]!.address
export const LABELS = new Set([...ETH_HOT, SOL_HOT])

export const whales: Whale[] = []
let n = 0
export function whale(p: Partial<Whale> & Pick<Whale, 'ts'>): Whale {
  n++
  const row: Whale = {
    chain: 'ethereum',
    tx_hash: `0x${n.toString(16).padStart(64, '0')}`,
    log_index: 0,
    block_number: 1000 + n,
    address: `0xwhale${n % 5}`,
    counterparty: `0xother${n}`,
    event_type: 'transfer_in',
    token: 'BTC',
    amount: 1,
    usd_value: 1_000_000,
    ...p
  }
  whales.push(row)
  return row
}

for (let k = 1; k <= 30; k++) {
  if (k === 3) {
    whale({ ts: B(k) + 10 * MIN, event_type: 'swap', token: 'WBTC', usd_value: 700_000, address: '0xswapper' })
    continue
  }
  if (k % 7 === 0) {
    whale({ ts: B(k) + 10 * MIN, token: 'ETH', usd_value: 5_000_000 }) // another asset only: BTC is null
    continue
  }
  for (let i = 0; i < 1 + (k % 3); i++) {
    const hot = ETH_HOT[(k + i) % ETH_HOT.length]!
    whale({
      ts: B(k) + (5 + 10 * i) * MIN,
      token: (i + k) % 2 ? 'BTC' : 'WBTC',
      event_type: rnd() < 0.5 ? 'transfer_in' : 'transfer_out',
      usd_value: Math.round(100_000 + rnd() * 5_000_000),
      address: `0xwhale${(k + i) % 5}`,
      // an exchange counterparty in even hours, sometimes written in upper case (EVM compares without case)
      ...(i === 0 && k % 2 === 0 ? { counterparty: k % 4 === 0 ? `0x${hot.slice(2).toUpperCase()}` : hot } : {})
    })
  }
  if (k % 5 === 1) {
    whale({
      ts: B(k) + 20 * MIN,
      token: 'ETH',
      usd_value: 3_000_000,
      event_type: 'transfer_out',
      counterparty: ETH_HOT[0]
    })
    whale({ ts: B(k) + 21 * MIN, token: 'USDT', usd_value: 2_000_000 })
  }
}
// a Solana withdrawal from a labelled hot wallet (base58 compares exactly)
whale({ ts: B(8) + 40 * MIN, chain: 'solana', token: 'WBTC', counterparty: SOL_HOT, usd_value: 1_500_000 })

export const trades: Trade[] = []
export const funding: Funding[] = []
export const ois: Oi[] = []
for (let k = 1; k <= 30; k++) {
  const close = 100_000 * (1 + 0.02 * Math.sin(k * 0.7) + 0.01 * Math.cos(k * 1.9))
  if (k % 5 !== 0) {
    trades.push({ ts: B(k) + 2 * MIN, exchange: 'binance', symbol: 'BTCUSDT', price: close * 0.999, qty: 0.5 })
    trades.push({ ts: B(k) + 55 * MIN, exchange: 'binance', symbol: 'BTCUSDT', price: close, qty: 0.25 })
  }
  if (k % 2 === 0)
    trades.push({ ts: B(k) + 30 * MIN, exchange: 'okx', symbol: 'BTC-USDT-SWAP', price: close * 1.001, qty: 1 })
  if (k % 2 === 0) {
    funding.push({
      ts: B(k) + MIN,
      exchange: 'binance',
      symbol: 'BTCUSDT',
      funding_rate: 0.0001 * k,
      interval_hours: 8
    })
    funding.push({
      ts: B(k) + 31 * MIN,
      exchange: 'binance',
      symbol: 'BTCUSDT',
      funding_rate: -0.00003,
      interval_hours: 8
    })
  }
  if (k % 3 === 0)
    funding.push({ ts: B(k) + MIN, exchange: 'okx', symbol: 'BTC-USDT-SWAP', funding_rate: 0.0002, interval_hours: 4 })
  if (k % 4 !== 0) {
    ois.push({ ts: B(k) + MIN, exchange: 'binance', symbol: 'BTCUSDT', oi_usd: 1e9 + k })
    ois.push({ ts: B(k) + 40 * MIN, exchange: 'binance', symbol: 'BTCUSDT', oi_usd: 2e9 + k })
  }
  if (k % 2 === 0) ois.push({ ts: B(k) + 20 * MIN, exchange: 'okx', symbol: 'BTC-USDT-SWAP', oi_usd: 5e8 * k })
}

export const market = (r: { exchange: string; symbol: string }) => ({
  exchange: r.exchange,
  symbol: r.symbol,
  base: 'BTC'
})
