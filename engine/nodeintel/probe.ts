/**
 * @module
 * The honeypot probe as one `eth_call`: the probe's runtime code (engine/nodeintel/probe-artifact.ts) is
 * injected at a fixed throwaway address by state override with enough native coin to buy, and called from
 * a funded throwaway sender with the chain's real gas price (tokens that read `tx.gasprice` to spot
 * simulations see a normal one). Nothing is deployed and no transaction is sent. The probe also returns the
 * block it ran at and the token's code size and decimals, so a check is this one request. The call data is
 * viem's `encodeFunctionData` and the answer viem's `decodeFunctionResult`, both with the probe's ABI.
 */
import {
  concat,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  type Address,
  type Hex,
  type PublicClient
} from 'viem'
import { isTransportError } from '../chain/rpc-errors.js'
import { PROBE_ABI, PROBE_INIT_CODE, PROBE_RUNTIME } from './probe-artifact.js'

/** where the probe's code is injected (no contract lives there on any chain) */
export const PROBE_ADDRESS: Address = '0x00000000000000000000000000000000007e57ed'
/** the simulated sender: an address nobody holds a key for, given a balance by override */
export const PROBE_SENDER: Address = '0x00000000000000000000000000000000005e11e7'
/** gas for the whole probe: below geth's default `--rpc.gascap` (50 M) with room for heavy tokens */
export const PROBE_GAS = 30_000_000n
/** native balance given to the sender (gas × price must be covered: anvil checks) and the probe, wei */
const SENDER_BALANCE = 10n ** 24n

export interface ProbeStep {
  readonly ok: boolean
  readonly expected: bigint
  readonly received: bigint
  readonly gasUsed: bigint
  readonly err: Hex
}

export interface ProbeResult {
  /** the block the call ran at (as the EVM saw it) */
  readonly blockNumber: bigint
  /** the token's code size, bytes (0: not a contract) */
  readonly codeSize: bigint
  /** decimals() when the token answers it, else 0 */
  readonly decimals: bigint
  readonly pair: Address
  readonly reserveBase: bigint
  readonly reserveToken: bigint
  readonly amountIn: bigint
  readonly buy: ProbeStep
  readonly approveOk: boolean
  /** selling everything bought at once would pass (tried and undone before the half sell) */
  readonly sellAllOk: boolean
  readonly sell: ProbeStep
  readonly sellSent: bigint
  readonly pairReceived: bigint
  readonly xfer: ProbeStep
}

export interface ProbeInput {
  readonly router: Address
  readonly wrappedNative: Address
  readonly token: Address
  /** wei of native the probe may buy with at most */
  readonly maxIn: bigint
  /** the price the call runs with, wei per gas */
  readonly gasPrice: bigint
}

/** The eth_call parameters of one probe (viem's `call` sends them; the benchmark sends them bare). */
export function probeCall(input: ProbeInput): Parameters<PublicClient['call']>[0] {
  return {
    account: PROBE_SENDER,
    to: PROBE_ADDRESS,
    data: encodeFunctionData({
      abi: PROBE_ABI,
      functionName: 'probe',
      args: [input.router, input.wrappedNative, input.token, input.maxIn]
    }),
    gas: PROBE_GAS,
    gasPrice: input.gasPrice,
    stateOverride: [
      { address: PROBE_ADDRESS, code: PROBE_RUNTIME, balance: input.maxIn + 10n ** 18n },
      { address: PROBE_SENDER, balance: SENDER_BALANCE }
    ]
  }
}

/**
 * The eth_call parameters of the constructor probe (HoneypotProbeInit): a call without `to` that creates it
 * with `probe`'s arguments and `maxIn` of native coin, from the same funded sender. Its return data is
 * `probe`'s result (decodeProbe).
 */
export function probeInitCall(input: ProbeInput): Parameters<PublicClient['call']>[0] {
  const args = encodeAbiParameters(
    [{ type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
    [input.router, input.wrappedNative, input.token, input.maxIn]
  )
  return {
    account: PROBE_SENDER,
    data: concat([PROBE_INIT_CODE, args]),
    value: input.maxIn,
    gas: PROBE_GAS,
    gasPrice: input.gasPrice,
    stateOverride: [{ address: PROBE_SENDER, balance: SENDER_BALANCE + input.maxIn }]
  }
}

/**
 * Decodes the probe's return data; null when there is none (a node that ignored the override). Data that
 * is not a probe result throws viem's decoding error.
 */
export function decodeProbe(data: Hex | undefined): ProbeResult | null {
  if (!data || data === '0x') return null
  return decodeFunctionResult({ abi: PROBE_ABI, functionName: 'probe', data })
}

/** A tiny contract that returns 42: run under an override, it tells whether the node honours overrides. */
const ANSWER_CODE: Hex = '0x602a60005260206000f3'
const ANSWER_ADDRESS: Address = '0x0000000000000000000000000000000000a11ce5'

/** true when the node runs eth_call with injected code (false: it refused or ignored the override). */
export async function supportsStateOverride(c: PublicClient): Promise<boolean> {
  try {
    const res = await c.call({ to: ANSWER_ADDRESS, stateOverride: [{ address: ANSWER_ADDRESS, code: ANSWER_CODE }] })
    return res.data !== undefined && BigInt(res.data) === 42n
  } catch (err) {
    if (isTransportError(err)) throw err
    return false
  }
}

/**
 * true when the node runs eth_simulateV1 with a state override (the answer contract's 42 comes back); false
 * when it does not know the method, refuses it or ignores the override. Transport errors throw.
 */
export async function supportsSimulateV1(c: PublicClient): Promise<boolean> {
  try {
    const [block] = await c.simulateBlocks({
      blocks: [
        {
          stateOverrides: [{ address: ANSWER_ADDRESS, code: ANSWER_CODE }],
          calls: [{ to: ANSWER_ADDRESS, data: '0x' }]
        }
      ],
      validation: false
    })
    const data = block?.calls[0]?.data
    return data !== undefined && data.length > 2 && BigInt(data) === 42n
  } catch (err) {
    if (isTransportError(err)) throw err
    return false
  }
}
