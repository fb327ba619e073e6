/**
 * Recorded Binance lines for the replay byte-path tests (test/integration/replay-fast-path.test.ts): an
 * exchangeInfo body, aggTrade messages in Binance's field order with single fields replaced, a line of the
 * recording format, and the odd recording (each line with whether the byte path should take it). `T0`: the
 * recordings' first time, ms.
 */
import { recordedLine, recordedTextLine } from '../../../ingest/record/recording-format.js'

export const T0 = Date.UTC(2026, 9, 1, 1)

interface Info {
  s: string
  base: string
  type?: string
}
export const exchangeInfo = (symbols: Info[]): string =>
  JSON.stringify({
    symbols: symbols.map((x) => ({
      symbol: x.s,
      contractType: x.type ?? 'PERPETUAL',
      status: 'TRADING',
      baseAsset: x.base,
      quoteAsset: 'USDT'
    }))
  })

/** An aggTrade message in Binance's order; `fields` replaces the text of single fields (`p`: `"1.5"`). */
export function agg(
  s: string,
  a: number | string,
  ts: number,
  fields: Record<string, string> = {},
  stream?: string
): string {
  const f: Record<string, string> = {
    e: '"aggTrade"',
    E: String(ts + 3),
    a: String(a),
    s: `"${s}"`,
    p: '"97000.5"',
    q: '"0.010"',
    f: String(Number(a) * 3 || 7),
    l: String(Number(a) * 3 + 1 || 8),
    T: String(ts),
    m: 'true',
    ...fields
  }
  const data = Object.entries(f)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `"${k}":${v}`)
    .join(',')
  return `{"stream":"${stream ?? s.toLowerCase() + '@aggTrade'}","data":{${data}}}`
}

export const ws = (msg: string, t: number): string => recordedLine('binance', 'ws', msg, t)

/** The odd recording: [line, whether the byte path should take it]. */
export function oddLines(): [string, boolean][] {
  let t = T0
  const L: [string, boolean][] = []
  const add = (line: string, fast = false): void => {
    L.push([line, fast])
    t += 7
  }
  add(
    recordedLine(
      'binance',
      '/fapi/v1/exchangeInfo',
      exchangeInfo([
        { s: 'BTCUSDT', base: 'BTC' },
        { s: 'ETHUSDT', base: 'ETH' },
        { s: '1000PEPEUSDT', base: '1000PEPE' },
        { s: 'TABUSDT', base: 'TA\\B\tX' }, // escaped in TSV
        { s: 'ETHUSDTQ', base: 'ETH', type: 'CURRENT_QUARTER' } // a delivery contract without the _YYMMDD name
      ]),
      t
    )
  )
  add(ws(agg('BTCUSDT', 100, t), t), true)
  add(ws(agg('BTCUSDT', 101, t, { p: '"97000.10"', q: '"1.000"' }), t), true) // reprinted: 97000.1, 1
  add(ws(agg('BTCUSDT', 102, t, { p: '"97000.00"', m: 'false' }), t), true)
  add(ws(agg('BTCUSDT', 102, t), t), true) // duplicate
  add(ws(agg('BTCUSDT', 101, t), t), true) // older: duplicate
  add(ws(agg('BTCUSDT', 110, t), t), true) // gap 103..109
  add(ws(agg('BTCUSDT', 111, t, { p: '"1e5"' }), t)) // Number('1e5') = 100000: general path
  add(ws(agg('BTCUSDT', 112, t, { p: '"0.0000001"' }), t)) // printed 1e-7
  add(ws(agg('BTCUSDT', 113, t, { p: '"0.000001"' }), t), true)
  add(ws(agg('BTCUSDT', 114, t, { p: '"-1"' }), t)) // malformed
  add(ws(agg('BTCUSDT', 115, t, { p: '"0"' }), t)) // malformed
  add(ws(agg('BTCUSDT', 116, t, { p: '""' }), t)) // malformed
  add(ws(agg('BTCUSDT', 117, t, { p: 'null' }), t))
  add(ws(agg('BTCUSDT', 118, t, { p: '' }), t)) // missing
  add(ws(agg('BTCUSDT', 119, t, { q: '"1234567890123456"' }), t)) // 16 digits
  add(ws(agg('BTCUSDT', '0120', t), t)) // leading zero: the scanner reads 120
  add(ws(agg('BTCUSDT', '"121"', t), t)) // a string id
  add(ws(agg('BTCUSDT', 122, t, { T: `0${t}` }), t))
  add(ws(agg('BTCUSDT', 123, t, { m: '"true"' }), t)) // malformed
  add(ws(agg('BTCUSDT', 124, t, { m: 'null' }), t))
  add(ws(agg('BTCUSDT', 125, t, { s: '"BTC\\u0055SDT"' }), t)) // escaped symbol
  add(ws(agg('BIGUSDT', 12345678901234567, t), t)) // over 15 digits (its own market: later ids would be duplicates)
  add(ws(agg('BTCUSDT', 126, t, { p: '"97001.5"', x: '1' }), t)) // an extra field
  add(ws(agg('BTCUSDT', 127, t), t).replace('"E":', '"E" :')) // whitespace
  add(ws(agg('BTCUSDT', 128, t), t).replace('\n', '\r\n')) // CRLF
  add(ws(agg('BTCUSDT', 129, t), t).replace('}}}', '}}} ')) // trailing space
  add(ws(agg('BTCUSDT', 130, t, {}, 'btc€usdt@aggTrade'), t), true) // multi-byte stream name
  add(ws(agg('btcusdt', 5, t), t)) // lower-case symbol: its own market
  add(ws(agg('1000PEPEUSDT', 9, t, { p: '"0.01234"', q: '"100"' }), t)) // multiplied
  add(ws(agg('BTCUSDT_250328', 9, t), t)) // delivery by name
  add(ws(agg('ETHUSDTQ', 9, t), t)) // delivery by exchangeInfo
  add(ws(agg('TABUSDT', 1, t, { p: '"2.5"' }), t), true)
  add(ws(agg('TABUSDT', 2, t, { p: '"2.50"' }), t), true)
  // a trade without an id, then the market's trades take the general path (checked against it)
  add(ws(agg('ETHUSDT', 500, t, { p: '"3400.5"' }), t), true)
  add(ws(agg('ETHUSDT', 0, t, { a: '', f: '1503' }), t))
  add(ws(agg('ETHUSDT', 501, t, { f: '1503' }), t))
  add(ws(agg('ETHUSDT', 502, t), t))
  add(ws(agg('ETHUSDT', 503, t, { a: 'null' }), t))
  add(
    ws(
      `{"stream":"btcusdt@markPrice","data":{"e":"markPriceUpdate","E":${t},"s":"BTCUSDT","p":"97010.5","i":"97005","r":"0.0001","T":${t + 3_600_000}}}`,
      t
    )
  )
  add(
    ws(
      `{"stream":"!forceOrder@arr","data":{"e":"forceOrder","E":${t},"o":{"s":"BTCUSDT","S":"SELL","p":"96000","ap":"96100.5","q":"0.5","z":"0.5","T":${t}}}}`,
      t
    )
  )
  add(ws('{"result":null,"id":1}', t))
  add(ws(`{"stream":"btcusdt@depth","data":{"e":"depthUpdate","E":${t}}}`, t))
  add(ws(agg('BTCUSDT', 131, t), t), true)
  add(
    recordedLine(
      'binance',
      '/fapi/v1/aggTrades?symbol=BTCUSDT&fromId=103&limit=2',
      `[{"a":103,"p":"97000.20","q":"0.5","f":309,"l":310,"T":${t},"m":false},{"a":104,"p":"97000.3","q":"0.25","f":312,"l":313,"T":${t},"m":true}]`,
      t
    )
  )
  add(
    recordedLine(
      'binance',
      '/fapi/v1/openInterest?symbol=BTCUSDT',
      `{"symbol":"BTCUSDT","openInterest":"812.5","time":${t}}`,
      t
    )
  )
  // the market list changes BTCUSDT's base mid-recording: the byte path's cached columns must follow
  add(
    recordedLine(
      'binance',
      '/fapi/v1/exchangeInfo',
      exchangeInfo([
        { s: 'BTCUSDT', base: 'XBT' },
        { s: 'ETHUSDTQ', base: 'ETH' }
      ]),
      t
    )
  )
  add(ws(agg('BTCUSDT', 132, t), t), true)
  add(ws(agg('ETHUSDTQ', 10, t), t), true) // now a perpetual
  add(recordedTextLine('binance', 'ws', '{"broken":', t))
  add(recordedLine('bybit', 'ws', `{"topic":"publicTrade.BTCUSDT","ts":${t},"data":[]}`, t))
  add(recordedLine('krakenx', 'ws', '{"x":1}', t))
  add('{"t": not json\n')
  add('\n')
  add('   \n')
  add(`{"t":${t},"v":"binance","c":"ws","m":${agg('BTCUSDT', 133, t)}}\n`, true)
  add(ws(agg('BTCUSDT', 134, t), t).replace('"v":"binance"', '"v":"binancf"'))
  return L
}
