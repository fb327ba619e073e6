/**
 * The owner-power table (engine/nodeintel/owner-selectors.ts): every selector is the keccak of its
 * signature, computed here with viem; the table in docs/node-intel.md is the same table; and the scan finds
 * every row of it when the code dispatches on it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { toFunctionSelector, type Hex } from 'viem'
import { projectRoot } from '../../engine/paths.js'
import { OWNER_SELECTORS } from '../../engine/nodeintel/owner-selectors.js'
import { scanCode } from '../../engine/nodeintel/bytecode.js'

describe('owner-power selectors', () => {
  it('each selector is the 4-byte keccak of its signature (viem toFunctionSelector)', () => {
    for (const s of OWNER_SELECTORS)
      expect(s.selector, s.signature).toBe(toFunctionSelector(`function ${s.signature}`).slice(2))
  })

  it('selectors and signatures are unique, signatures canonical', () => {
    expect(new Set(OWNER_SELECTORS.map((s) => s.selector)).size).toBe(OWNER_SELECTORS.length)
    expect(new Set(OWNER_SELECTORS.map((s) => s.signature)).size).toBe(OWNER_SELECTORS.length)
    for (const s of OWNER_SELECTORS)
      expect(s.signature).toMatch(/^[A-Za-z_][A-Za-z0-9_]*\(([a-z0-9[\]]+(,[a-z0-9[\]]+)*)?\)$/)
  })

  it('covers the usual names of each group', () => {
    const sigs = new Set(OWNER_SELECTORS.map((s) => s.signature))
    for (const sig of [
      'setBlacklist(address,bool)',
      'addToBlacklist(address)',
      'blacklistAddress(address,bool)',
      'setBots(address[])',
      'addBots(address[])',
      'delBot(address)',
      'blockBots(address[])',
      'setBlackList(address,bool)',
      'enableTrading()',
      'openTrading()',
      'setTradingEnabled(bool)',
      'setTrading(bool)',
      'startTrading()',
      'setFee(uint256)',
      'setTaxFee(uint256)',
      'setBuyFee(uint256)',
      'setSellFees(uint256,uint256)',
      'updateFees(uint256,uint256)',
      'setTaxes(uint256,uint256)',
      'setSwapFee(uint256)',
      'excludeFromFee(address)',
      'includeInFee(address)',
      'setExcludeFromFees(address,bool)',
      'excludeFromFees(address,bool)',
      'setMaxTxAmount(uint256)',
      'setMaxTxPercent(uint256)',
      'setMaxWalletSize(uint256)',
      'updateMaxWalletAmount(uint256)',
      'removeLimits()',
      'setCooldownEnabled(bool)',
      'setCooldown(uint256)',
      'setTransferDelayEnabled(bool)'
    ])
      expect(sigs.has(sig), sig).toBe(true)
  })

  it('docs/node-intel.md lists the same table', () => {
    const doc = fs.readFileSync(path.join(projectRoot(), 'docs/node-intel.md'), 'utf8')
    const rows = [...doc.matchAll(/^\| `0x([0-9a-f]{8})` \| `([^`]+)` \| (\w+) \| (\w+) \|$/gm)].map((m) =>
      [m[1], m[2], m[3], m[4]].join(' ')
    )
    expect(rows).toEqual(OWNER_SELECTORS.map((s) => [s.selector, s.signature, s.group, s.source].join(' ')))
  })

  it('the scan finds every row when the dispatch compares it', () => {
    // DUP1 PUSH4 <selector> EQ PUSH1 0 JUMPI, for every selector, then STOP
    const code = `0x${OWNER_SELECTORS.map((s) => `8063${s.selector}14600057`).join('')}00` as Hex
    const found = scanCode(code).groups
    for (const s of OWNER_SELECTORS) expect(found[s.group], s.signature).toContain(s.signature)
  })
})
