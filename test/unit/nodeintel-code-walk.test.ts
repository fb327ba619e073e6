/**
 * The bytecode walk on hand-made code: PUSH data, the metadata trailer and bytes after the code are not
 * read as opcodes; a JUMPDEST counts when something pushes its offset or it lies inside the code section;
 * a PUSH4 is a selector of the contract only when the dispatch compares it.
 */
import { describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { decode, liveCode } from '../../engine/nodeintel/code-walk.js'
import { scanCode } from '../../engine/nodeintel/bytecode.js'

/** Hex code from parts written with spaces between bytes (easier to check against the offsets noted). */
const code = (...parts: string[]): Hex => `0x${parts.join('').replace(/\s+/g, '')}` as Hex
const bytes = (h: Hex): Uint8Array => Buffer.from(h.slice(2), 'hex')
const MINT = '40c10f19' // mint(address,uint256)

describe('code walk', () => {
  it('skips PUSH immediates: 0xff / 0xf4 / 0xf2 inside PUSH data are not opcodes', () => {
    const s = scanCode(code('7f', 'ff'.repeat(16), 'f4'.repeat(8), 'f2'.repeat(8), '61 f4ff', '00'))
    expect(s).toMatchObject({ selfdestruct: false, delegatecall: false })
    expect([...decode(bytes(code('61 f4ff 00')))]).toEqual([0, 3])
  })

  it('cuts the metadata trailer even where the code before it falls through', () => {
    // PUSH1 1, then a 2-byte CBOR map (0xa1 = LOG1 as an opcode, 0xff = SELFDESTRUCT) and its length
    const withTrailer = code('6001', 'a1ff', '0002')
    expect(scanCode(withTrailer).selfdestruct).toBe(false)
    // the same bytes without a length that points at a CBOR map are code, and are read
    expect(scanCode(code('6001', 'a1ff', '0009')).selfdestruct).toBe(true)
  })

  it('stops at the INVALID boundary: data after it with a JUMPDEST nothing jumps to is not read', () => {
    // pc0 PUSH1 4 · pc2 JUMP · pc3 INVALID · pc4 JUMPDEST · pc5 STOP · pc6 INVALID · pc7 f4 · pc8 ff · pc9 5b · pc10 f4
    const data = code('6004 56 fe 5b 00 fe f4 ff 5b f4')
    expect(scanCode(data)).toMatchObject({ selfdestruct: false, delegatecall: false })
    expect([...liveCode(bytes(data)).offsets]).toEqual([0, 2, 4, 5])
    // the same bytes, with pc 9 pushed as a jump target: that block is code
    const jumped = code('6009 56 fe 5b 00 fe f4 ff 5b f4')
    expect(scanCode(jumped)).toMatchObject({ selfdestruct: false, delegatecall: true })
  })

  it('data appended after a RETURN (clone immutable args) is not read, even without an INVALID', () => {
    // pc0 PUSH1 0 · pc2 DUP1 · pc3 RETURN · then 20 bytes of an address with 0xf4 / 0xff / 0xf2 in it
    expect(scanCode(code('6000 80 f3', 'f4ff00f2'.repeat(5)))).toMatchObject({
      selfdestruct: false,
      delegatecall: false
    })
  })

  it('reads a JUMPDEST inside the code section even when its target is computed', () => {
    // pc0 PUSH1 13 · pc2 POP · pc3 PUSH1 4 · pc5 PUSH1 5 · pc7 ADD · pc8 JUMP (to 9) · pc9 JUMPDEST ·
    // pc10 DELEGATECALL · pc11 STOP · pc12 INVALID · pc13 JUMPDEST · pc14 STOP
    expect(scanCode(code('600d 50 6004 6005 01 56 5b f4 00 fe 5b 00')).delegatecall).toBe(true)
  })

  it('a PUSH cut short by the end of the code is one instruction, its missing bytes zero', () => {
    expect([...decode(bytes(code('6340c1')))]).toEqual([0])
    expect(scanCode(code('6340c1')).groups).toEqual({})
  })
})

describe('selectors', () => {
  it('a PUSH4 compared with the call selector is a function of the contract (EQ, DUPn EQ, GT pivots, XOR)', () => {
    for (const dispatch of [`80 63${MINT} 14`, `63${MINT} 81 14`, `80 63${MINT} 11`, `63${MINT} 81 18`])
      expect(scanCode(code(dispatch, '6000 57 00')).groups.mint, dispatch).toEqual(['mint(address,uint256)'])
  })

  it('a PUSH4 used to encode a call to another contract is not (PUSH4, PUSH1 0xe0, SHL)', () => {
    expect(scanCode(code(`63${MINT} 60e0 1b 6000 52 00`)).groups).toEqual({})
  })

  it('selector bytes inside PUSH data or after the code are not selectors', () => {
    expect(scanCode(code('7f', `63${MINT}14`.padEnd(64, '0'), '00')).groups).toEqual({})
    expect(scanCode(code('00 fe', `8063${MINT}14`)).groups).toEqual({})
  })
})
