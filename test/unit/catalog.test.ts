/**
 * The catalog (catalog/) is neutral and consistent: it imports nothing outside itself, its addresses are
 * checksummed, and its ids are unique.
 */
import fs from 'node:fs'
import path from 'node:path'
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { CHAINS, CHAIN_IDS, EVM_CHAIN_IDS, NODE_INTEL_PATHS } from '../../catalog/chains.js'
import { PLANS, PLAN_NAMES } from '../../catalog/plans.js'
import { VENUES, VENUE_IDS, usdtPerpSymbol } from '../../catalog/venues.js'

const CATALOG_DIR = path.join(import.meta.dirname, '..', '..', 'catalog')

describe('catalog', () => {
  it('imports only from catalog/ itself and TypeBox, for payload schemas (web/ bundles it)', () => {
    for (const file of fs.readdirSync(CATALOG_DIR).filter((f) => f.endsWith('.ts'))) {
      const src = fs.readFileSync(path.join(CATALOG_DIR, file), 'utf8')
      const specifiers = [...src.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]!)
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^(?:\.\/[a-z-]+\.js|@sinclair\/typebox)$/)
    }
  })

  it('every address is checksummed (EIP-55)', () => {
    for (const c of CHAINS) {
      if (c.evm === null) continue
      const addresses: string[] = [c.evm.wrappedNative]
      if ('nodeIntel' in c.evm)
        addresses.push(c.evm.nodeIntel.router, c.evm.nodeIntel.factory, c.evm.nodeIntel.usdToken)
      for (const a of addresses) expect(getAddress(a), `${c.id} ${a}`).toBe(a)
    }
  })

  it('ids, chain ids, variable prefixes and path names are unique', () => {
    const unique = (xs: readonly unknown[]) => expect(new Set(xs).size).toBe(xs.length)
    unique(VENUE_IDS)
    unique(VENUES.map((v) => v.envPrefix))
    unique(VENUES.flatMap((v) => v.tradingView))
    unique(CHAIN_IDS)
    unique(EVM_CHAIN_IDS.map((id) => CHAINS.find((c) => c.id === id)!.evm!.chainId))
    unique(NODE_INTEL_PATHS)
    unique(PLAN_NAMES)
  })

  it('names markets as the venues do', () => {
    expect(usdtPerpSymbol('binance', 'BTC')).toBe('BTCUSDT')
    expect(usdtPerpSymbol('okx', 'ETH')).toBe('ETH-USDT-SWAP')
  })

  it('plans are listed cheapest first, each including the features of the one before', () => {
    for (let i = 1; i < PLANS.length; i++) {
      const before = PLANS[i - 1]!.features
      expect(before.every((f) => (PLANS[i]!.features as readonly string[]).includes(f))).toBe(true)
    }
  })
})
