/**
 * @module
 * Revert data → a short human reason: `Error(string)` gives its text, `Panic(uint256)` its code, a custom
 * error its 4-byte selector, empty data "reverted without a reason". Never throws.
 */
import { decodeAbiParameters, type Hex } from 'viem'

const ERROR_STRING = '0x08c379a0'
const PANIC = '0x4e487b71'

export function revertReason(data: Hex | undefined | null): string {
  if (!data || data === '0x') return 'reverted without a reason'
  try {
    if (data.startsWith(ERROR_STRING)) {
      const [msg] = decodeAbiParameters([{ type: 'string' }], `0x${data.slice(10)}`)
      return msg.slice(0, 200)
    }
    if (data.startsWith(PANIC)) {
      const [code] = decodeAbiParameters([{ type: 'uint256' }], `0x${data.slice(10)}`)
      return `panic 0x${code.toString(16)}`
    }
  } catch {
    // malformed payload: fall through to the selector
  }
  return `custom error ${data.slice(0, 10)}`
}
