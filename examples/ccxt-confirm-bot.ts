/**
 * @module
 * Example CCXT-style bot (docs/confirm.md): before each order it asks `GET /v1/confirm` whether the market
 * context supports the trade, and places the order through a CCXT-style exchange object only when the answer
 * is not SKIP, with the amount scaled by `size_mult` (REDUCE: 0.25 to 0.75, CONFIRM: 1 to 1.5). It reads the
 * market's funding from `GET /v1/derivatives/screener` for the log line (trader plan or higher; skipped
 * with a note on a plan without the screener).
 *
 *   TIDEWATCH_KEY=tw_live_... node dist/examples/ccxt-confirm-bot.js "BTC/USDT:USDT buy 0.01" "ETH/USDT:USDT sell 0.5"
 *
 * Each argument is one order intent: a CCXT unified symbol, `buy` or `sell`, and the amount in base units.
 * Prints one JSON line per intent: the confirmation's action and size_mult and the order placed (or null).
 * Env: TIDEWATCH_URL (default http://127.0.0.1:8080), TIDEWATCH_KEY; EXCHANGE, the venue whose screener row
 * is read (default binance).
 *
 * The exchange is a paper exchange with ccxt's `createOrder` signature, so the example runs without ccxt
 * installed; with ccxt, pass an exchange object instead (`new ccxt.binanceusdm({ apiKey, secret })`):
 * `runIntents` only calls `createOrder`.
 */

/** The part of a ccxt exchange this bot uses: ccxt's `createOrder(symbol, type, side, amount, price?, params?)`. */
export interface OrderPlacer {
  createOrder(
    symbol: string,
    type: 'market' | 'limit',
    side: 'buy' | 'sell',
    amount: number,
    price?: number,
    params?: Record<string, unknown>
  ): Promise<{ readonly id: string; readonly symbol: string; readonly side: string; readonly amount: number }>
}

/** A paper exchange: records orders and answers them as filled (a ccxt `Order` has these fields and more). */
export class PaperExchange implements OrderPlacer {
  readonly orders: { id: string; symbol: string; type: string; side: string; amount: number }[] = []

  async createOrder(symbol: string, type: 'market' | 'limit', side: 'buy' | 'sell', amount: number) {
    const order = { id: `paper-${this.orders.length + 1}`, symbol, type, side, amount, status: 'closed' }
    this.orders.push(order)
    return order
  }
}

/**
 * A CCXT unified symbol's parts: `BASE/QUOTE` (spot), `BASE/QUOTE:SETTLE` (perpetual swap),
 * `BASE/QUOTE:SETTLE-YYMMDD` (dated future) or with `-STRIKE-C|P` (option), as ccxt's docs name markets.
 * Tidewatch names a market by its base asset (and the screener by base and venue).
 */
export function parseUnifiedSymbol(symbol: string): { base: string; quote: string; settle: string | null } {
  const m = /^([A-Z0-9]+)\/([A-Z0-9]+)(?::([A-Z0-9]+)(?:-.+)?)?$/i.exec(symbol.trim())
  if (!m) throw new Error(`${symbol} is not a CCXT unified symbol (BASE/QUOTE or BASE/QUOTE:SETTLE)`)
  return { base: m[1]!.toUpperCase(), quote: m[2]!.toUpperCase(), settle: m[3]?.toUpperCase() ?? null }
}

interface Confirmation {
  readonly action: 'CONFIRM' | 'REDUCE' | 'SKIP'
  readonly size_mult: number
  readonly composite: number
  readonly reasons: readonly string[]
}

interface ScreenerRow {
  readonly symbol: string
  readonly exchange: string
  readonly funding_rate: number | null
  readonly funding_interval_hours: number | null
  readonly funding_rate_annualized: number | null
}

async function getJson<T>(base: string, key: string, path: string, query: Record<string, string>): Promise<T> {
  const url = new URL(path, base)
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v)
  const res = await fetch(url, { headers: { 'x-api-key': key } })
  const body = (await res.json()) as T & { error?: { code: string; message: string } }
  if (!res.ok)
    throw Object.assign(new Error(`${res.status} ${body.error?.code}: ${body.error?.message}`), { status: res.status })
  return body
}

export interface IntentResult {
  readonly symbol: string
  readonly side: 'buy' | 'sell'
  readonly amount: number
  readonly action: Confirmation['action']
  readonly size_mult: number
  /** the market's funding (screener), or null when the plan has no screener or the market no row */
  readonly funding: { rate: number | null; interval_hours: number | null; annualized: number | null } | null
  /** the order as the exchange answered it; null when the confirmation said SKIP */
  readonly order: { id: string; amount: number } | null
}

/** Confirms and places each intent in turn (a bot's loop over its signals). */
export async function runIntents(o: {
  readonly base: string
  readonly key: string
  readonly exchange: OrderPlacer
  readonly venue: string
  readonly intents: readonly { symbol: string; side: 'buy' | 'sell'; amount: number }[]
}): Promise<IntentResult[]> {
  const results: IntentResult[] = []
  for (const intent of o.intents) {
    const { base, quote } = parseUnifiedSymbol(intent.symbol)
    const direction = intent.side === 'buy' ? 'long' : 'short'
    const c = await getJson<Confirmation>(o.base, o.key, '/v1/confirm', {
      symbol: base,
      direction,
      source: 'ccxt-bot'
    })
    let funding: IntentResult['funding'] = null
    try {
      const s = await getJson<{ rows: ScreenerRow[] }>(o.base, o.key, '/v1/derivatives/screener', {
        symbol: base,
        exchange: o.venue
      })
      // the venue's USDT-margined perpetual of this base: its native symbol ends with the quote (BTCUSDT, BTC-USDT-SWAP)
      const row = s.rows.find((r) => r.symbol.replace(/[-_]/g, '').replace(/SWAP$/, '').endsWith(quote))
      if (row) {
        funding = {
          rate: row.funding_rate,
          interval_hours: row.funding_interval_hours,
          annualized: row.funding_rate_annualized
        }
      }
    } catch (err) {
      // 403: the key's plan has no screener; the confirmation alone decides
      if ((err as { status?: number }).status !== 403) throw err
    }
    let order: IntentResult['order'] = null
    if (c.action !== 'SKIP') {
      const placed = await o.exchange.createOrder(intent.symbol, 'market', intent.side, intent.amount * c.size_mult)
      order = { id: placed.id, amount: placed.amount }
    }
    results.push({ ...intent, action: c.action, size_mult: c.size_mult, funding, order })
  }
  return results
}

/** `"BTC/USDT:USDT buy 0.01"` → an intent. */
function parseIntent(arg: string): { symbol: string; side: 'buy' | 'sell'; amount: number } {
  const [symbol, side, amount] = arg.trim().split(/\s+/)
  const n = Number(amount)
  if (!symbol || (side !== 'buy' && side !== 'sell') || !(n > 0)) {
    throw new Error(`"${arg}" is not an intent: write "<unified symbol> buy|sell <amount>"`)
  }
  return { symbol, side, amount: n }
}

async function main(): Promise<void> {
  const key = process.env['TIDEWATCH_KEY'] ?? ''
  if (!key) throw new Error('set TIDEWATCH_KEY')
  const intents = process.argv.slice(2).map(parseIntent)
  if (intents.length === 0) throw new Error('usage: ccxt-confirm-bot.js "BTC/USDT:USDT buy 0.01" ...')
  const results = await runIntents({
    base: process.env['TIDEWATCH_URL'] ?? 'http://127.0.0.1:8080',
    key,
    exchange: new PaperExchange(),
    venue: process.env['EXCHANGE'] ?? 'binance',
    intents
  })
  for (const r of results) console.log(JSON.stringify(r))
}

if (process.argv[1]?.endsWith('ccxt-confirm-bot.js')) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  })
}
