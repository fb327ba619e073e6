/**
 * Every entry of the catalog (catalog/) reaches every place that lists its kind, with no second list to
 * edit: for each chain, venue and webhook event type the test asks the real consumer (the configuration,
 * the watch-list loader, the chain source names, the node-intelligence routes, settings and push channels,
 * the API schemas, the symbol grammar, the freqtrade names, the registration validator) and expects the
 * entry there, named in the consumer's messages where it lists the others. So an entry added to the
 * catalog alone (docs/architecture.md, "Adding a venue, a chain, an event type") is held to reach them all.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { afterAll, describe, expect, it } from 'vitest'
import { CHAINS, EVM_CHAIN_IDS, EVM_SPECS, NODE_INTEL_CHAINS } from '../../catalog/chains.js'
import { PERP_VENUES, VENUES, usdtPerpSymbol } from '../../catalog/venues.js'
import { WEBHOOK_EVENT_NAMES } from '../../catalog/webhook-events.js'
import { ApiError } from '../../engine/errors.js'
import type { Market } from '../../engine/history/markets.js'
import { freqtradePair } from '../../engine/export/freqtrade/names.js'
import { nodeIntelConfig } from '../../engine/nodeintel/config.js'
import { CHAINS as RECORD_CHAINS } from '../../engine/records/types.js'
import { ChannelError } from '../../engine/stream/channel-name.js'
import { newPairsKind } from '../../engine/stream/kinds/newpairs.js'
import { tokenRiskKind } from '../../engine/stream/kinds/tokenrisk.js'
import { TRADINGVIEW_VENUES } from '../../engine/symbols/grammar.js'
import { loadWatchlists } from '../../engine/watchlist/load.js'
import { CHAIN_SOURCE_NAMES } from '../../ingest/sources/chain/chain-source-names.js'
import { ChainPath } from '../../schemas/api/node.js'
import { WebhookCreateBody } from '../../schemas/api/webhooks.js'
import { ENV_SCHEMA, KNOWN_SOURCES, loadConfig } from '../../server/config.js'
import { parseChain } from '../../server/routes/node.js'
import { parseJsonBody } from '../../server/validate.js'

const variables = Object.keys(ENV_SCHEMA.properties)

/** The message `run` throws (an ApiError, ChannelError or any Error). */
function refusal(run: () => unknown): string {
  try {
    run()
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('accepted')
}

describe('a chain of the catalog', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-catalog-watch-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it.each(CHAINS.map((c) => [c.id, c] as const))(
    '%s: a record chain, a watch-list chain and a chain source',
    (id, c) => {
      expect(RECORD_CHAINS).toContain(id)
      fs.writeFileSync(
        path.join(dir, 'one.tokens.csv'),
        `chain,address,symbol,decimals,price_asset,source\n${id},native,NAT,18,NAT,https://example.com/\n`
      )
      expect(loadWatchlists(dir).tokens.map((t) => t.chain)).toEqual([id])
      expect(CHAIN_SOURCE_NAMES).toContain(c.evm === null ? id : `evm:${id}`)
    }
  )

  it.each(EVM_CHAIN_IDS.map((id) => [id, EVM_SPECS[id]] as const))(
    '%s: its node variables are read and make it a source of SOURCES=chains',
    (id, spec) => {
      for (const suffix of ['_RPC_URL', '_WS_URL', '_RPC_RATE', '_RPC_TIMEOUT_MS']) {
        expect(variables).toContain(`${spec.envName}${suffix}`)
      }
      const config = loadConfig({ SOURCES: 'chains', [`${spec.envName}_RPC_URL`]: 'http://127.0.0.1:9' })
      expect(config.sources).toEqual([`evm:${id}`])
      expect(config.chains[id]?.urls).toEqual(['http://127.0.0.1:9'])
    }
  )

  it.each(NODE_INTEL_CHAINS.map((c) => [c.path, c] as const))(
    'node intelligence on %s: path, settings, push channels, and every refusal names it',
    (p, c) => {
      const defaults = EVM_SPECS[c.chain].nodeIntel!
      expect(parseChain(p.toUpperCase())).toBe(p)
      expect(Value.Check(ChainPath, { chain: p })).toBe(true)
      expect(nodeIntelConfig({}).dex[p]).toMatchObject({
        router: defaults.router,
        factory: defaults.factory,
        usdToken: defaults.usdToken,
        wrappedNative: EVM_SPECS[c.chain].wrappedNative
      })
      expect(variables).toContain(`${p.toUpperCase()}_DEX_ROUTER`)
      for (const kind of [tokenRiskKind, newPairsKind]) {
        const raw = `${kind.type}:${p}`
        expect(kind.parse({ raw, parts: raw.split(':'), rest: p })).toMatchObject({ chain: p })
        const bad = `${kind.type}:nochain`
        const message = refusal(() => kind.parse({ raw: bad, parts: bad.split(':'), rest: 'nochain' }))
        expect(message).toContain(p)
      }
      const routeRefusal = refusal(() => parseChain('nochain'))
      expect(routeRefusal).toContain(p)
    }
  )

  it('refusals are the catalogue errors of their layer', () => {
    expect(() => parseChain('nochain')).toThrow(ApiError)
    const raw = 'newpairs:nochain'
    expect(() => newPairsKind.parse({ raw, parts: raw.split(':'), rest: 'nochain' })).toThrow(ChannelError)
  })
})

describe('a venue of the catalog', () => {
  it.each(VENUES.map((v) => [v.id, v] as const))(
    '%s: a SOURCES name with its variables and TradingView prefixes',
    (id, v) => {
      expect(KNOWN_SOURCES).toContain(id)
      expect(variables).toEqual(expect.arrayContaining([`${v.envPrefix}_WS_URL`, `${v.envPrefix}_REST_URL`]))
      expect(loadConfig({ SOURCES: id }).sources).toEqual([id])
      for (const prefix of v.tradingView) expect(TRADINGVIEW_VENUES[prefix]).toBe(id)
    }
  )

  it.each(PERP_VENUES.map((v) => [v.id] as const))('%s: the freqtrade layout names its USDT perpetual', (id) => {
    const market: Market = { exchange: id, symbol: usdtPerpSymbol(id, 'BTC'), base: 'BTC' }
    expect(freqtradePair(market)).toBe('BTC/USDT:USDT')
    const other: Market = { exchange: 'novenue', symbol: 'BTCUSDT', base: 'BTC' }
    expect(refusal(() => freqtradePair(other))).toContain(id)
  })
})

describe('a webhook event type of the catalog', () => {
  it.each(WEBHOOK_EVENT_NAMES.map((n) => [n] as const))(
    '%s: registrable alone and named in the refusal of others',
    (name) => {
      const body = (events: string[]) =>
        Buffer.from(
          JSON.stringify({ url: 'https://hooks.example.com/x', events, symbols: ['*'], secret: 'a-secret-of-16-chars' })
        )
      expect(parseJsonBody(WebhookCreateBody, body([name]))['events']).toEqual([name])
      expect(refusal(() => parseJsonBody(WebhookCreateBody, body(['NO_SUCH_EVENT'])))).toContain(name)
    }
  )
})
