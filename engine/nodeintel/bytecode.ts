/**
 * @module
 * Static reading of runtime bytecode (no source needed): the 4-byte selectors it dispatches on (PUSH4
 * immediates, PUSH data skipped when walking), the risky opcodes it contains, and minimal-proxy
 * (EIP-1167) code. The Solidity metadata trailer (CBOR, its length in the last two bytes) is cut off
 * first so its bytes are not read as opcodes. Selectors were computed with viem from the signatures given.
 */
import type { Hex } from 'viem'

export type SelectorGroup =
  'owner' | 'mint' | 'pause' | 'blacklist' | 'fee_setter' | 'max_tx' | 'trading_switch' | 'upgrade'

/** selector → [group, signature] (research list, reference §1.6) */
export const RISK_SELECTORS: Readonly<Record<string, readonly [SelectorGroup, string]>> = {
  '8da5cb5b': ['owner', 'owner()'],
  '893d20e8': ['owner', 'getOwner()'],
  '715018a6': ['owner', 'renounceOwnership()'],
  f2fde38b: ['owner', 'transferOwnership(address)'],
  '40c10f19': ['mint', 'mint(address,uint256)'],
  a0712d68: ['mint', 'mint(uint256)'],
  '8456cb59': ['pause', 'pause()'],
  '5c975abb': ['pause', 'paused()'],
  f9f92be4: ['blacklist', 'blacklist(address)'],
  '44337ea1': ['blacklist', 'addToBlacklist(address)'],
  '0ecb93c0': ['blacklist', 'addBlackList(address)'],
  '153b0d1e': ['blacklist', 'setBlacklist(address,bool)'],
  fe575a87: ['blacklist', 'isBlacklisted(address)'],
  b515566a: ['blacklist', 'setBots(address[])'],
  d34628cc: ['blacklist', 'addBots(address[])'],
  '69fe0e2d': ['fee_setter', 'setFee(uint256)'],
  '0b78f9c0': ['fee_setter', 'setFees(uint256,uint256)'],
  '061c82d0': ['fee_setter', 'setTaxFeePercent(uint256)'],
  '8b4cee08': ['fee_setter', 'setSellFee(uint256)'],
  '0cc835a3': ['fee_setter', 'setBuyFee(uint256)'],
  '6db79437': ['fee_setter', 'updateFees(uint256,uint256)'],
  '437823ec': ['fee_setter', 'excludeFromFee(address)'],
  af9549e0: ['fee_setter', 'setExcludeFromFee(address,bool)'],
  ec28438a: ['max_tx', 'setMaxTxAmount(uint256)'],
  d543dbeb: ['max_tx', 'setMaxTxPercent(uint256)'],
  ea1644d5: ['max_tx', 'setMaxWalletSize(uint256)'],
  '8a8c523c': ['trading_switch', 'enableTrading()'],
  c9567bf9: ['trading_switch', 'openTrading()'],
  c2e5ec04: ['trading_switch', 'setTradingEnabled(bool)'],
  '5932ead1': ['trading_switch', 'setCooldownEnabled(bool)'],
  '3659cfe6': ['upgrade', 'upgradeTo(address)'],
  '4f1ef286': ['upgrade', 'upgradeToAndCall(address,bytes)'],
  '5c60da1b': ['upgrade', 'implementation()']
}

export interface CodeScan {
  /** runtime size in bytes (metadata included) */
  readonly size: number
  /** risky functions found, by group: their signatures */
  readonly groups: Readonly<Partial<Record<SelectorGroup, string[]>>>
  readonly selfdestruct: boolean
  readonly delegatecall: boolean
  /** EIP-1167 minimal proxy: the address it forwards to */
  readonly minimalProxyTo: Hex | null
}

const SELFDESTRUCT = 0xff
const DELEGATECALL = 0xf4
const CALLCODE = 0xf2
const PUSH1 = 0x60
const PUSH4 = 0x63
const PUSH32 = 0x7f
const EIP1167_PREFIX = '363d3d373d3d3d363d73'

/** The runtime code without its Solidity metadata trailer (left as is when the trailer does not parse). */
function withoutMetadata(code: Uint8Array): Uint8Array {
  if (code.length < 2) return code
  const len = (code[code.length - 2]! << 8) | code[code.length - 1]!
  const start = code.length - 2 - len
  // CBOR map header (0xa1..0xa5) where the trailer should begin
  if (len > 0 && start > 0 && code[start]! >= 0xa1 && code[start]! <= 0xa5) return code.subarray(0, start)
  return code
}

export function scanCode(hex: Hex | undefined): CodeScan {
  const code = Buffer.from((hex ?? '0x').slice(2), 'hex')
  const body = withoutMetadata(code)
  const groups: Partial<Record<SelectorGroup, string[]>> = {}
  let selfdestruct = false
  let delegatecall = false
  for (let i = 0; i < body.length; i++) {
    const op = body[i]!
    if (op === SELFDESTRUCT) selfdestruct = true
    else if (op === DELEGATECALL || op === CALLCODE) delegatecall = true
    else if (op >= PUSH1 && op <= PUSH32) {
      if (op === PUSH4 && i + 4 < body.length) {
        const sel = Buffer.from(body.subarray(i + 1, i + 5)).toString('hex')
        const hit = RISK_SELECTORS[sel]
        if (hit) {
          const list = (groups[hit[0]] ??= [])
          if (!list.includes(hit[1])) list.push(hit[1])
        }
      }
      i += op - PUSH1 + 1
    }
  }
  const h = (hex ?? '0x').slice(2).toLowerCase()
  const minimalProxyTo = h.startsWith(EIP1167_PREFIX) ? (`0x${h.slice(20, 60)}` as Hex) : null
  return { size: code.length, groups, selfdestruct, delegatecall, minimalProxyTo }
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
