import { describe, it, expect } from 'vitest'
import { KNOWN_SOURCES, LIVE_VENUES, loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { VENUES, createVenueSource } from '../../ingest/sources/venues.js'

/** The README's configuration table: tooling and tests set these variables, so they must not move. */
const DOCUMENTED = [
  ['binance', 'BINANCE', 'wss://fstream.binance.com', 'https://fapi.binance.com'],
  ['bybit', 'BYBIT', 'wss://stream.bybit.com/v5/public/linear', 'https://api.bybit.com'],
  ['okx', 'OKX', 'wss://ws.okx.com:8443/ws/v5/public', 'https://www.okx.com'],
  ['deribit', 'DERIBIT', 'wss://www.deribit.com/ws/api/v2', 'https://www.deribit.com/api/v2'],
  ['bitget', 'BITGET', 'wss://ws.bitget.com/v3/ws/public', 'https://api.bitget.com']
]

/** A SYMBOLS value each venue accepts and what it reads from it (OKX maps BTCUSDT to its swap). */
const SYMBOLS: Readonly<Record<string, readonly [string, readonly string[]]>> = {
  binance: ['btcusdt,ETHUSDT', ['BTCUSDT', 'ETHUSDT']],
  bybit: ['btcusdt,ETHUSDT', ['BTCUSDT', 'ETHUSDT']],
  okx: ['BTCUSDT,eth-usdt-swap', ['BTC-USDT-SWAP', 'ETH-USDT-SWAP']],
  deribit: ['btc-27mar26', ['BTC-27MAR26']],
  bitget: ['btcusdt,1000SATSUSDT', ['BTCUSDT', '1000SATSUSDT']]
}

describe('the venue registry drives the configuration', () => {
  it('holds the documented venues, variable prefixes and default URLs', () => {
    expect(VENUES.map((v) => [v.name, v.envPrefix, v.wsUrl, v.restUrl])).toEqual(DOCUMENTED)
  })

  it.each(VENUES.map((v) => [v.name, v] as const))(
    '%s: config.venues reads <PREFIX>_WS_URL, _REST_URL and _SYMBOLS with the entry defaults',
    (name, v) => {
      const defaults = loadConfig({}).venues[name]
      expect(defaults).toMatchObject({ wsUrl: v.wsUrl, restUrl: v.restUrl, symbols: [] })
      expect(Object.isFrozen(defaults)).toBe(true)

      const [raw, symbols] = SYMBOLS[name]!
      const set = loadConfig({
        [`${v.envPrefix}_WS_URL`]: 'ws://127.0.0.1:9/ws/',
        [`${v.envPrefix}_REST_URL`]: 'http://127.0.0.1:9/api/',
        [`${v.envPrefix}_SYMBOLS`]: raw
      }).venues[name]
      expect(set).toMatchObject({ wsUrl: 'ws://127.0.0.1:9/ws', restUrl: 'http://127.0.0.1:9/api', symbols })

      expect(() => loadConfig({ [`${v.envPrefix}_WS_URL`]: 'http://x' })).toThrow(
        `${v.envPrefix}_WS_URL must use ws or wss`
      )
      expect(() => loadConfig({ [`${v.envPrefix}_REST_URL`]: 'wss://x' })).toThrow(
        `${v.envPrefix}_REST_URL must use http or https`
      )
      expect(() => loadConfig({ [`${v.envPrefix}_SYMBOLS`]: 'BTC USDT' })).toThrow(
        `${v.envPrefix}_SYMBOLS must be a comma list of`
      )
    }
  )

  it('config.venues has exactly one entry per registry venue', () => {
    const venues = loadConfig({}).venues
    expect(Object.keys(venues)).toEqual(VENUES.map((v) => v.name))
    expect(Object.isFrozen(venues)).toBe(true)
  })

  it('SOURCES=live is the registry venues marked live, in registry order', () => {
    const live = VENUES.filter((v) => v.live).map((v) => v.name)
    expect(LIVE_VENUES).toEqual(live)
    expect(loadConfig({ SOURCES: 'live' }).sources).toEqual(live)
    expect(live).toEqual(['binance', 'bybit', 'okx', 'deribit'])
  })

  it('SOURCES accepts every registry name; an unknown one is refused naming the registry list', () => {
    for (const v of VENUES) expect(loadConfig({ SOURCES: v.name }).sources).toEqual([v.name])
    expect(KNOWN_SOURCES).toEqual(['sim', ...VENUES.map((v) => v.name), 'live', 'none'])
    expect(() => loadConfig({ SOURCES: 'kraken' })).toThrow(
      `SOURCES must be a comma list of sim, ${VENUES.map((v) => v.name).join(', ')}, live, none or replay:<file or dir> (got 'kraken')`
    )
  })

  it('builds each venue source from its config (no connection until it runs)', () => {
    const config = loadConfig({ SOURCES: 'live' })
    for (const v of VENUES) {
      const source = createVenueSource(v.name, config.venues, { log: silentLogger(), recordDir: undefined })
      expect(source.name).toBe(v.name)
      expect(source.status()).toMatchObject({ name: v.name, synthetic: false, connected: false, phase: 'starting' })
    }
  })
})
