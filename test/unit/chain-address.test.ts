/**
 * The EIP-55 address checks of engine/chain/address.ts (on @noble/hashes' Keccak-256) against viem's,
 * which the rest of the chain code uses: the same answers on random and edge inputs.
 */
import { randomBytes } from 'node:crypto'
import * as viem from 'viem'
import { describe, expect, it } from 'vitest'
import { checksumAddress, getAddress, isAddress, isHexAddress } from '../../engine/chain/address.js'

describe('addresses', () => {
  it('checksums as viem does', () => {
    for (let i = 0; i < 200; i++) {
      const a = `0x${randomBytes(20).toString('hex')}` as const
      expect(checksumAddress(a)).toBe(viem.checksumAddress(a))
      expect(getAddress(a.toUpperCase().replace('0X', '0x'))).toBe(viem.getAddress(a))
    }
  })

  it('accepts and refuses what viem isAddress accepts and refuses, strict and not', () => {
    const good = viem.checksumAddress(`0x${randomBytes(20).toString('hex')}`)
    const flipped =
      good.slice(0, 2) +
      [...good.slice(2)].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')
    const cases = [
      good,
      good.toLowerCase(),
      flipped,
      '0x' + good.slice(2).toUpperCase(),
      good.slice(0, 41),
      good + '0',
      'x' + good,
      '0x' + 'g'.repeat(40),
      ''
    ]
    for (const c of cases) {
      expect(isAddress(c), c).toBe(viem.isAddress(c, { strict: true }))
      expect(isAddress(c, { strict: false }), c).toBe(viem.isAddress(c, { strict: false }))
      expect(isHexAddress(c), c).toBe(/^0x[0-9a-fA-F]{40}$/.test(c))
    }
  })

  it('throws on anything but a hex address', () => {
    expect(() => getAddress('0x1234')).toThrow(/not a 0x-prefixed 20-byte hex address/)
  })
})
