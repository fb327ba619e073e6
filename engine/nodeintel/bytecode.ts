/**
 * @module
 * Static reading of runtime bytecode (no source needed): the owner-power functions it dispatches on
 * (owner-selectors.ts), the risky opcodes it can execute, and minimal-proxy (EIP-1167) code. Only bytes
 * the EVM can run count (code-walk.ts): PUSH data, the metadata trailer and data sections after the
 * code are not read as opcodes or selectors.
 */
import type { Hex } from 'viem'
import { liveCode, type CodeView } from './code-walk.js'
import { GROUP_LABELS, OWNER_SELECTOR_INDEX, type SelectorGroup } from './owner-selectors.js'

export type { SelectorGroup } from './owner-selectors.js'

export interface CodeScan {
  /** runtime size in bytes (metadata included) */
  readonly size: number
  /** risky functions found, by group: their signatures */
  readonly groups: Readonly<Partial<Record<SelectorGroup, string[]>>>
  readonly selfdestruct: boolean
  /** DELEGATECALL or CALLCODE */
  readonly delegatecall: boolean
  /** EIP-1167 minimal proxy: the address it forwards to */
  readonly minimalProxyTo: Hex | null
}

const SELFDESTRUCT = 0xff
const DELEGATECALL = 0xf4
const CALLCODE = 0xf2
const PUSH4 = 0x63
const DUP1 = 0x80
const SWAP16 = 0x9f
/** LT, GT, EQ, XOR: how compilers compare the call's selector with a function's (solc EQ, GT/LT pivots; Vyper XOR) */
const COMPARES = new Set([0x10, 0x11, 0x14, 0x18])
/** DUPn / SWAPn allowed between the PUSH4 and its comparison (`PUSH4 sel DUP2 EQ` in solc's IR pipeline) */
const MAX_STACK_OPS = 2
const EIP1167_PREFIX = '363d3d373d3d3d363d73'

/**
 * A PUSH4 whose operand is compared with the call's selector: the function dispatch. A selector pushed to
 * encode a call to another contract (then shifted or stored) is not one of this contract's functions.
 */
function isDispatched({ code, offsets }: CodeView, k: number): boolean {
  for (let j = k + 1; j < offsets.length && j <= k + 1 + MAX_STACK_OPS; j++) {
    const op = code[offsets[j]!]!
    if (COMPARES.has(op)) return true
    if (op < DUP1 || op > SWAP16) return false
  }
  return false
}

export function scanCode(hex: Hex | undefined): CodeScan {
  const full = Buffer.from((hex ?? '0x').slice(2), 'hex')
  const view = liveCode(full)
  const { code, offsets } = view
  const groups: Partial<Record<SelectorGroup, string[]>> = {}
  let selfdestruct = false
  let delegatecall = false
  for (let k = 0; k < offsets.length; k++) {
    const pc = offsets[k]!
    const op = code[pc]!
    if (op === SELFDESTRUCT) selfdestruct = true
    else if (op === DELEGATECALL || op === CALLCODE) delegatecall = true
    else if (op === PUSH4 && pc + 5 <= code.length && isDispatched(view, k)) {
      const hit = OWNER_SELECTOR_INDEX.get(Buffer.from(code.subarray(pc + 1, pc + 5)).toString('hex'))
      if (hit) {
        const list = (groups[hit.group] ??= [])
        if (!list.includes(hit.signature)) list.push(hit.signature)
      }
    }
  }
  const h = (hex ?? '0x').slice(2).toLowerCase()
  const minimalProxyTo = h.startsWith(EIP1167_PREFIX) ? (`0x${h.slice(20, 60)}` as Hex) : null
  return { size: full.length, groups, selfdestruct, delegatecall, minimalProxyTo }
}

/**
 * What a scan found, one line each: every selector group with its functions (`fee exclusion:
 * excludeFromFees(address,bool)`), in GROUP_LABELS order, then the risky opcodes and a minimal proxy.
 */
export function codeFindings(scan: CodeScan): string[] {
  const out: string[] = []
  for (const [group, label] of Object.entries(GROUP_LABELS) as [SelectorGroup, string][]) {
    const sigs = scan.groups[group]
    if (sigs?.length) out.push(`${label}: ${sigs.join(', ')}`)
  }
  if (scan.selfdestruct) out.push('contains SELFDESTRUCT')
  if (scan.delegatecall) out.push('contains DELEGATECALL / CALLCODE')
  if (scan.minimalProxyTo) out.push(`minimal proxy (EIP-1167) forwarding to ${scan.minimalProxyTo}`)
  return out
}

/** EIP-1967 storage slots (keccak256('eip1967.proxy.implementation') - 1, and the beacon's). */
export const EIP1967_IMPLEMENTATION_SLOT: Hex = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
export const EIP1967_BEACON_SLOT: Hex = '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50'

/** The address held in a 32-byte storage word, or null for zero. */
export function slotAddress(word: Hex | undefined): Hex | null {
  if (!word || /^0x0*$/.test(word)) return null
  const a = `0x${word.slice(2).padStart(64, '0').slice(24)}` as Hex
  return /^0x0{40}$/.test(a) ? null : a
}
