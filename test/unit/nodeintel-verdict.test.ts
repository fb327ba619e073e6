/**
 * The judgement of a probe result (engine/nodeintel/verdict.ts), the risk levels and score
 * (engine/nodeintel/risk.ts), the per-token cache (ttl-cache.ts) and the node-intelligence settings
 * (config.ts): the rules docs/node-intel.md states, case by case.
 */
import { parseEther } from 'viem'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../server/config.js'
import { nodeIntelConfig } from '../../engine/nodeintel/config.js'
import type { ProbeResult, ProbeStep } from '../../engine/nodeintel/probe.js'
import { riskLevel, riskScore } from '../../engine/nodeintel/risk.js'
import { TtlCache } from '../../engine/nodeintel/ttl-cache.js'
import { judge, SELL_ALL_BLOCKED } from '../../engine/nodeintel/verdict.js'

const T = { highTaxPct: 10, honeypotTaxPct: 90 }
const ok = (expected: bigint, received: bigint): ProbeStep => ({
  ok: true,
  expected,
  received,
  gasUsed: 50_000n,
  err: '0x'
})
const failed = (reason: string): ProbeStep => ({
  ok: false,
  expected: 1000n,
  received: 0n,
  gasUsed: 9_000n,
  err: ('0x08c379a0' +
    '20'.padStart(64, '0') +
    reason.length.toString(16).padStart(64, '0') +
    Buffer.from(reason).toString('hex').padEnd(64, '0')) as `0x${string}`
})

function result(over: Partial<ProbeResult> = {}): ProbeResult {
  return {
    blockNumber: 100n,
    codeSize: 2000n,
    decimals: 18n,
    pair: '0x1111111111111111111111111111111111111111',
    reserveBase: 10n ** 20n,
    reserveToken: 10n ** 24n,
    amountIn: 10n ** 18n,
    buy: ok(10_000n, 10_000n),
    approveOk: true,
    sellAllOk: true,
    sell: ok(1_000n, 1_000n),
    sellSent: 5_000n,
    pairReceived: 5_000n,
    xfer: ok(2_500n, 2_500n),
    ...over
  }
}

describe('judge', () => {
  it('ok: every step passed, no tax', () => {
    const j = judge(result(), T)
    expect(j).toMatchObject({ verdict: 'ok', isHoneypot: false, reasons: [] })
    expect(j.simulation).toMatchObject({ buy_tax_pct: 0, sell_tax_pct: 0, transfer_tax_pct: 0, buy_gas: 50_000 })
  })

  it('no pair, or an empty one: no_liquidity, no simulation', () => {
    expect(judge(result({ pair: '0x0000000000000000000000000000000000000000' }), T)).toMatchObject({
      verdict: 'no_liquidity',
      isHoneypot: null,
      simulation: null
    })
    expect(judge(result({ reserveBase: 0n }), T).verdict).toBe('no_liquidity')
  })

  it('a failed buy is unknown, not a honeypot, with its reason', () => {
    const j = judge(result({ buy: failed('trading not open') }), T)
    expect(j).toMatchObject({ verdict: 'unknown', isHoneypot: null })
    expect(j.simulation?.revert_reason).toBe('buy: trading not open')
    expect(j.simulation?.sell_gas).toBeNull()
  })

  it('honeypot: a reverted sell, a failed approve, a sell returning nothing, or sell tax >= the limit', () => {
    expect(judge(result({ sell: failed('nope') }), T).verdict).toBe('honeypot')
    expect(judge(result({ approveOk: false }), T).verdict).toBe('honeypot')
    expect(judge(result({ sell: ok(1_000n, 0n) }), T).verdict).toBe('honeypot')
    const taxed = judge(result({ pairReceived: 500n }), T) // 90% of the tokens sold never reached the pair
    expect(taxed.verdict).toBe('honeypot')
    expect(taxed.simulation?.sell_tax_pct).toBe(90)
  })

  it('high_tax above the limit (not at it); the sell tax is the larger of the pair and quote measures', () => {
    expect(judge(result({ buy: ok(10_000n, 9_000n) }), T).verdict).toBe('ok') // exactly 10%
    const high = judge(result({ buy: ok(10_000n, 8_999n) }), T)
    expect(high.verdict).toBe('high_tax')
    expect(high.reasons[0]).toMatch(/buy tax 10.01% > 10%/)
    const quote = judge(result({ sell: ok(1_000n, 850n) }), T) // the quote measure says 15%
    expect(quote.simulation?.sell_tax_pct).toBe(15)
    expect(judge(result({ buy: ok(10_000n, 9_000n) }), { highTaxPct: 5, honeypotTaxPct: 90 }).verdict).toBe('high_tax')
  })

  it('half the balance sells but not all of it: a reason, not a verdict', () => {
    const j = judge(result({ sellAllOk: false }), T)
    expect(j.verdict).toBe('ok')
    expect(j.reasons).toEqual([SELL_ALL_BLOCKED])
  })

  it('a blocked wallet transfer is a reason, not a honeypot on its own', () => {
    const j = judge(result({ xfer: failed('no transfers') }), T)
    expect(j.verdict).toBe('ok')
    expect(j.simulation?.transfer_ok).toBe(false)
    expect(j.reasons).toEqual(['transfer reverted: no transfers'])
  })
})

describe('risk score', () => {
  it('levels at 20, 50 and 80; the score clamps at 100', () => {
    expect([0, 19, 20, 49, 50, 79, 80, 100].map(riskLevel)).toEqual([
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
      'critical'
    ])
    expect(
      riskScore([
        { id: 'a', weight: 70, evidence: '' },
        { id: 'b', weight: 40, evidence: '' }
      ])
    ).toBe(100)
  })
})

describe('TtlCache', () => {
  it('shares one computation among concurrent asks, keeps it for the ttl, drops failures, stays bounded', async () => {
    const c = new TtlCache<number>(60_000, 2)
    let runs = 0
    const slow = (): Promise<number> => new Promise((r) => setTimeout(() => r(++runs), 10))
    const [a, b] = await Promise.all([c.get('x', slow), c.get('x', slow)])
    expect([a.value, b.value, runs]).toEqual([1, 1, 1])
    expect((await c.get('x', slow)).hit).toBe(true)
    expect((await c.get('x', slow, true)).value).toBe(2) // fresh
    await expect(c.get('y', () => Promise.reject(new Error('down')))).rejects.toThrow('down')
    expect((await c.get('y', slow)).hit).toBe(false) // the failure was not kept
    await c.get('z', slow)
    expect(c.size).toBe(2)
  })
})

describe('nodeIntelConfig', () => {
  it('defaults to the mainnet DEXes and wrapped natives', () => {
    const c = nodeIntelConfig({})
    expect(c.dex.bsc).toMatchObject({
      dexName: 'PancakeSwap V2',
      router: '0x10ED43C718714eb63d5aA57B78B54704E256024E',
      factory: '0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73',
      wrappedNative: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c'
    })
    expect(c.dex.avax).toMatchObject({
      dexName: 'Trader Joe V1',
      router: '0x60aE616a2155Ee3d9A68541Ba4544862310933d4',
      wrappedNative: '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7'
    })
    expect(c).toMatchObject({ highTaxPct: 10, honeypotTaxPct: 90, cacheMs: 15_000, probeMaxIn: 10n ** 18n })
  })

  it('refuses bad values naming the variable', () => {
    expect(() => nodeIntelConfig({ BSC_DEX_ROUTER: '0x12' })).toThrow(ConfigError)
    expect(() => nodeIntelConfig({ BSC_DEX_ROUTER: '0x12' })).toThrow(/BSC_DEX_ROUTER/)
    expect(() => nodeIntelConfig({ NODEINTEL_HIGH_TAX_PCT: '50', NODEINTEL_HONEYPOT_TAX_PCT: '40' })).toThrow(
      /NODEINTEL_HONEYPOT_TAX_PCT/
    )
    expect(() => nodeIntelConfig({ NODEINTEL_PROBE_MAX_IN: '-1' })).toThrow(/NODEINTEL_PROBE_MAX_IN/)
    expect(nodeIntelConfig({ AVAX_DEX_ROUTER: '0x' + 'ab'.repeat(20) }).dex.avax.dexName).toBe('custom')
  })

  it('checksums an address set in the environment', () => {
    const router = '0x60aE616a2155Ee3d9A68541Ba4544862310933d4'
    expect(nodeIntelConfig({ AVAX_DEX_ROUTER: router.toLowerCase() }).dex.avax.router).toBe(router)
  })

  it('reads NODEINTEL_PROBE_MAX_IN in wei as viem parseEther does', () => {
    for (const amount of ['0.5', '2', '12.000000000000000001', '0.000000000000000001', '1.25']) {
      expect(nodeIntelConfig({ NODEINTEL_PROBE_MAX_IN: amount }).probeMaxIn, amount).toBe(parseEther(amount))
    }
    expect(() => nodeIntelConfig({ NODEINTEL_PROBE_MAX_IN: '0.0' })).toThrow(/NODEINTEL_PROBE_MAX_IN/)
  })
})
