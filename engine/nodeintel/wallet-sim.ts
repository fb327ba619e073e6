/**
 * @module
 * The honeypot check as a wallet meets the token: one `eth_simulateV1` request (through the chain
 * client's lean JSON-RPC client, engine/chain/raw-rpc.ts) in which a fresh address without code, given native coin by state override, sends its
 * own transactions in successive simulated blocks on top of the head, each block one number and
 * STEP_GAP_S seconds after the last:
 *
 * 1. buy: the wallet calls the probe's `walletBuy` (engine/nodeintel/probe/HoneypotProbe.sol, injected by
 *    state override), which buys through the router and has the pair pay the tokens to the wallet;
 * 2. transfer: `token.transfer(recipient, bought / 4)` from the wallet, the recipient's balance read before
 *    and after;
 * 3. approve: `token.approve(router, max)` from the wallet, a block of its own;
 * 4. sell: the router's quote, then the wallet's own
 *    `swapExactTokensForTokensSupportingFeeOnTransferTokens(bought / 2)`, with the wallet's wrapped-native
 *    balance and the pair's token balance read before and after, then one token unit sent straight to the
 *    pair (its revert is the token's own reason, which the router masks as TRANSFER_FROM_FAILED);
 * 5. the probe contract's own run (`probe`, from another sender): the sell-all check, and what a contract
 *    meets, compared with the wallet in the reasons.
 *
 * The transfer and the sell need the amount the buy delivers, so they use a plan: the pair and the amount
 * the same buy delivered last time. Without a plan (the token's first check) the request holds the buy
 * only, and the full request follows with the plan it gives; a plan that no longer fits
 * (the buy now delivers less than the three quarters the steps spend, or another pair) is replaced the
 * same way. Both requests run on the same head block, so the buy is the same in both.
 */
import {
  encodeFunctionData,
  erc20Abi,
  getAddress,
  maxUint256,
  numberToHex,
  parseAbi,
  prepareEncodeFunctionData,
  type Address,
  type Hex
} from 'viem'
import { isTransportError } from '../chain/rpc-errors.js'
import { JsonParams, type AnswerPicker, type RpcParams } from '../chain/raw-rpc.js'
import { PROBE_ABI, PROBE_RUNTIME } from './probe-artifact.js'
import { PROBE_ADDRESS, PROBE_GAS, PROBE_SENDER, type ProbeInput } from './probe.js'
import { SimOutcomes, simOutcomesFromText, simOutcomesFromValue, type CallOutcome } from './sim-answer.js'

/** The simulated wallet: an address without code nobody holds a key for, funded by state override. */
export const WALLET: Address = getAddress('0x5a1e0b7c3d9f2e4a6b8c0d1e3f5a7b9c2d4e6f80')
/** Where the wallet's transfer goes: a second fresh address. */
export const WALLET_RECIPIENT: Address = getAddress('0x7c2e4a6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f5a79')
/** Seconds between the wallet's blocks: a person's pace, past the usual anti-bot cooldowns (30-60 s). */
export const STEP_GAP_S = 60n
/** Gas limit of each wallet transaction (what a wallet would set for a swap). */
const WALLET_TX_GAS = 3_000_000n
/** The simulated blocks' gas limit: room for the probe's run (PROBE_GAS) on chains with smaller blocks. */
const BLOCK_GAS_LIMIT = 2n * PROBE_GAS
/** Native coin given to the wallet and the probe's sender, wei (gas x price must be covered). */
const FUNDS = 10n ** 24n
/** The sell's deadline after its block, seconds (a wallet's usual 20 minutes). */
const DEADLINE_S = 1200n

/** the router functions the wallet calls (common to every V2 fork) */
export const ROUTER_ABI = parseAbi([
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
  'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)'
])

/**
 * The functions the request calls, each resolved in its ABI once with its selector (viem's
 * prepareEncodeFunctionData): encodeFunctionData given that one-function ABI and the selector only encodes the
 * arguments, where given a function name it finds the function and its selector again on every call. (Passed
 * as two named fields: an object spread into its parameters costs viem's call several times the encoding.)
 */
const FN = {
  walletBuy: prepareEncodeFunctionData({ abi: PROBE_ABI, functionName: 'walletBuy' }),
  probe: prepareEncodeFunctionData({ abi: PROBE_ABI, functionName: 'probe' }),
  balanceOf: prepareEncodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf' }),
  transfer: prepareEncodeFunctionData({ abi: erc20Abi, functionName: 'transfer' }),
  approve: prepareEncodeFunctionData({ abi: erc20Abi, functionName: 'approve' }),
  getAmountsOut: prepareEncodeFunctionData({ abi: ROUTER_ABI, functionName: 'getAmountsOut' }),
  swap: prepareEncodeFunctionData({
    abi: ROUTER_ABI,
    functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens'
  })
} as const

/** Call data that names nothing of the token or the chain: encoded once. */
const BALANCE_OF_RECIPIENT = encodeFunctionData({
  abi: FN.balanceOf.abi,
  functionName: FN.balanceOf.functionName,
  args: [WALLET_RECIPIENT]
})
const BALANCE_OF_WALLET = encodeFunctionData({
  abi: FN.balanceOf.abi,
  functionName: FN.balanceOf.functionName,
  args: [WALLET]
})
/** `approve(router, max)` per router: one per configured chain */
const approvals = new Map<Address, Hex>()
function approveMax(router: Address): Hex {
  let data = approvals.get(router)
  if (data === undefined)
    approvals.set(
      router,
      (data = encodeFunctionData({
        abi: FN.approve.abi,
        functionName: FN.approve.functionName,
        args: [router, maxUint256]
      }))
    )
  return data
}

/** The head block the wallet's blocks follow. */
export interface Head {
  readonly number: bigint
  /** seconds */
  readonly timestamp: bigint
}

/** What the token's buy delivered last time: the transfer and sell amounts come from it. */
export interface WalletPlan {
  readonly pair: Address
  /** tokens the wallet's buy delivered, smallest units */
  readonly bought: bigint
}

export interface WalletSimInput extends ProbeInput {
  readonly head: Head
  /** null: the buy only (the plan comes from it) */
  readonly plan: WalletPlan | null
}

/** One transaction of the simulated blocks. */
export interface SimCall {
  readonly account: Address
  readonly to: Address
  readonly data: Hex
  readonly gas: bigint
  readonly gasPrice: bigint
  readonly value?: bigint
}

/** One simulated block: its overrides (number and time in seconds) and its transactions. */
export interface SimBlock {
  readonly blockOverrides: { readonly number: bigint; readonly time: bigint; readonly gasLimit: bigint }
  readonly stateOverrides?: readonly { readonly address: Address; readonly code?: Hex; readonly balance: bigint }[]
  readonly calls: readonly SimCall[]
}

export type { CallOutcome } from './sim-answer.js'

export type WalletSimAnswer = { blocks: readonly (readonly CallOutcome[])[] } | { error: unknown }

/** the wallet's transfer: a quarter of the planned buy */
export const transferAmount = (p: WalletPlan): bigint => p.bought / 4n
/** the wallet's sell: half of the planned buy */
export const sellAmount = (p: WalletPlan): bigint => p.bought / 2n

/** The call data of a check that names the token, the budget and the plan, encoded for `walletBlocks`. */
interface TokenCalls {
  /** what they were encoded for: a plan is one token's, but the check's input is compared anyway */
  readonly router: Address
  readonly wrapped: Address
  readonly token: Address
  readonly maxIn: bigint
  readonly walletBuy: Hex
  readonly probe: Hex
  readonly transfer: Hex
  readonly quote: Hex
  readonly pairBalance: Hex
  readonly toPair: Hex
  /** the sell's call data for the last head it was encoded for (its deadline follows the head's time) */
  swap: { readonly headTime: bigint; readonly data: Hex } | null
}

/**
 * Each plan's call data, kept while the plan object lives: the node facts keep one plan per token
 * (node-facts.ts, MAX_PLANS) and `readWalletSim` keeps the plan object while the buy delivers the same, so
 * a token's later checks reuse its encoded calls instead of running viem's encoder (and its address
 * caches) on the same arguments again. Nothing to bound here: an entry goes with its plan.
 */
const callsByPlan = new WeakMap<WalletPlan, TokenCalls>()

function tokenCalls(input: WalletSimInput, plan: WalletPlan): TokenCalls {
  const { router, wrappedNative: wrapped, token, maxIn } = input
  const kept = callsByPlan.get(plan)
  if (kept && kept.router === router && kept.wrapped === wrapped && kept.token === token && kept.maxIn === maxIn)
    return kept
  const calls: TokenCalls = {
    router,
    wrapped,
    token,
    maxIn,
    walletBuy: walletBuyData(input),
    probe: encodeFunctionData({
      abi: FN.probe.abi,
      functionName: FN.probe.functionName,
      args: [router, wrapped, token, maxIn]
    }),
    transfer: encodeFunctionData({
      abi: FN.transfer.abi,
      functionName: FN.transfer.functionName,
      args: [WALLET_RECIPIENT, transferAmount(plan)]
    }),
    quote: encodeFunctionData({
      abi: FN.getAmountsOut.abi,
      functionName: FN.getAmountsOut.functionName,
      args: [sellAmount(plan), [token, wrapped]]
    }),
    pairBalance: encodeFunctionData({
      abi: FN.balanceOf.abi,
      functionName: FN.balanceOf.functionName,
      args: [plan.pair]
    }),
    toPair: encodeFunctionData({
      abi: FN.transfer.abi,
      functionName: FN.transfer.functionName,
      args: [plan.pair, 1n]
    }),
    swap: null
  }
  callsByPlan.set(plan, calls)
  return calls
}

/** the wallet's buy through the probe */
const walletBuyData = (input: WalletSimInput): Hex =>
  encodeFunctionData({
    abi: FN.walletBuy.abi,
    functionName: FN.walletBuy.functionName,
    args: [input.router, input.wrappedNative, input.token]
  })

/** the wallet's sell of half the planned buy, its deadline DEADLINE_S after the sell's block (the 4th after the head) */
function swapData(input: WalletSimInput, plan: WalletPlan, calls: TokenCalls): Hex {
  const headTime = input.head.timestamp
  if (calls.swap?.headTime === headTime) return calls.swap.data
  const data = encodeFunctionData({
    abi: FN.swap.abi,
    functionName: FN.swap.functionName,
    args: [sellAmount(plan), 0n, [input.token, input.wrappedNative], WALLET, headTime + 4n * STEP_GAP_S + DEADLINE_S]
  })
  calls.swap = { headTime, data }
  return data
}

/** The simulated blocks of one wallet simulation. */
export function walletBlocks(input: WalletSimInput): SimBlock[] {
  const { head, plan, token, router, wrappedNative: wrapped, gasPrice } = input
  const at = (i: bigint) => ({
    number: head.number + i,
    time: head.timestamp + i * STEP_GAP_S,
    gasLimit: BLOCK_GAS_LIMIT
  })
  const tx = (to: Address, data: Hex, value?: bigint): SimCall => ({
    account: WALLET,
    to,
    data,
    gas: WALLET_TX_GAS,
    gasPrice,
    ...(value === undefined ? {} : { value })
  })
  const read = (of: Address, data: Hex): SimCall => tx(of, data)
  const calls = plan ? tokenCalls(input, plan) : null
  const buy: SimBlock = {
    blockOverrides: at(1n),
    stateOverrides: [
      { address: PROBE_ADDRESS, code: PROBE_RUNTIME, balance: input.maxIn + 10n ** 18n },
      { address: WALLET, balance: FUNDS },
      { address: PROBE_SENDER, balance: FUNDS }
    ],
    calls: [tx(PROBE_ADDRESS, calls?.walletBuy ?? walletBuyData(input), input.maxIn)]
  }
  if (!plan || !calls) return [buy]
  return [
    buy,
    {
      blockOverrides: at(2n),
      calls: [read(token, BALANCE_OF_RECIPIENT), tx(token, calls.transfer), read(token, BALANCE_OF_RECIPIENT)]
    },
    {
      blockOverrides: at(3n),
      calls: [tx(token, approveMax(router))]
    },
    {
      blockOverrides: at(4n),
      calls: [
        tx(router, calls.quote),
        read(wrapped, BALANCE_OF_WALLET),
        read(token, calls.pairBalance),
        tx(router, swapData(input, plan, calls)),
        read(wrapped, BALANCE_OF_WALLET),
        read(token, calls.pairBalance),
        // the token's own reason when the sell failed (the router masks it): one unit sent to the pair
        tx(token, calls.toPair)
      ]
    },
    // the probe contract's own run, from its sender
    {
      blockOverrides: at(5n),
      calls: [{ account: PROBE_SENDER, to: PROBE_ADDRESS, data: calls.probe, gas: PROBE_GAS, gasPrice }]
    }
  ]
}

type RpcOverrides = Readonly<Record<Address, { code?: Hex; balance: Hex }>>

/**
 * The buy block's state overrides as JSON-RPC takes them and their JSON text, per probe budget (`maxIn`,
 * wei): the probe's code and the balances depend on nothing else, so each budget's overrides (the ~12 KB of
 * code in them) are built and serialized once. One entry per configured NODEINTEL_PROBE_MAX_IN, a handful.
 */
const overridesByBudget = new Map<bigint, { readonly value: RpcOverrides; readonly text: string }>()

function rpcOverrides(
  maxIn: bigint,
  overrides: NonNullable<SimBlock['stateOverrides']>
): { readonly value: RpcOverrides; readonly text: string } {
  let o = overridesByBudget.get(maxIn)
  if (!o) {
    const value: RpcOverrides = Object.freeze(
      Object.fromEntries(
        overrides.map((x) => [x.address, { ...(x.code ? { code: x.code } : {}), balance: numberToHex(x.balance) }])
      )
    )
    o = { value, text: JSON.stringify(value) }
    overridesByBudget.set(maxIn, o)
  }
  return o
}

/** Stands for the buy block's overrides in the request's text until their kept text replaces it. */
const OVERRIDES_SLOT = '@probe-overrides@'
const OVERRIDES_SLOT_JSON = JSON.stringify(OVERRIDES_SLOT)

/** The request's params with the buy block's overrides given by `overrides` (their value, or a slot). */
function requestParams(
  input: WalletSimInput,
  overrides: (block: NonNullable<SimBlock['stateOverrides']>) => unknown
): [unknown, Hex] {
  const blockStateCalls = walletBlocks(input).map((b) => ({
    blockOverrides: {
      number: numberToHex(b.blockOverrides.number),
      time: numberToHex(b.blockOverrides.time),
      gasLimit: numberToHex(b.blockOverrides.gasLimit)
    },
    ...(b.stateOverrides ? { stateOverrides: overrides(b.stateOverrides) } : {}),
    calls: b.calls.map((x) => ({
      from: x.account,
      to: x.to,
      data: x.data,
      gas: numberToHex(x.gas),
      gasPrice: numberToHex(x.gasPrice),
      ...(x.value === undefined ? {} : { value: numberToHex(x.value) })
    }))
  }))
  return [{ blockStateCalls, validation: false }, numberToHex(input.head.number)]
}

/**
 * The `eth_simulateV1` parameters of one wallet simulation, as JSON-RPC takes them (quantities as hex):
 * the blocks on top of the head, `validation: false` (the wallet's nonce and the base fee are not checked).
 */
export function walletRequest(input: WalletSimInput): [unknown, Hex] {
  return requestParams(input, (o) => rpcOverrides(input.maxIn, o).value)
}

/**
 * The same parameters as JSON text, the text `JSON.stringify(walletRequest(input))` gives: everything but
 * the buy block's overrides serialized per request, the overrides' kept text spliced in.
 */
export function walletParams(input: WalletSimInput): JsonParams {
  let kept = ''
  const text = JSON.stringify(
    requestParams(input, (o) => {
      kept = rpcOverrides(input.maxIn, o).text
      return OVERRIDES_SLOT
    })
  )
  const i = text.indexOf(OVERRIDES_SLOT_JSON)
  return new JsonParams(i < 0 ? text : text.slice(0, i) + kept + text.slice(i + OVERRIDES_SLOT_JSON.length))
}

/**
 * One JSON-RPC request: what `pick` read of the answer's text, else the answer's result; a JSON-RPC error
 * answer rejects (RpcRequestError, as viem's). A caller that cannot give the text (viem's `request`)
 * ignores `pick`.
 */
export type RpcCall = (method: string, params: RpcParams, pick: AnswerPicker) => Promise<unknown>

/**
 * One wallet simulation (`eth_simulateV1`) through `call`: the chain client's lean client (raw-rpc.ts) in
 * the service, viem's `request` in the benchmark's reference. Only each call's status, data and gas are
 * read (no block or log formatting; from the answer's text where the client gives it: sim-answer.ts). The calls' outcomes, or the node's JSON-RPC error (a node without
 * eth_simulateV1, or one that refuses these blocks); transport errors throw. Caught here, inside the
 * client's request, as runProbe does.
 */
export function runWalletSim(call: RpcCall, input: WalletSimInput): Promise<WalletSimAnswer> {
  return call('eth_simulateV1', walletParams(input), simOutcomesFromText).then(
    (answer) => ({ blocks: answer instanceof SimOutcomes ? answer.blocks : simOutcomesFromValue(answer) }),
    (err: unknown) => {
      if (isTransportError(err)) throw err
      return { error: err }
    }
  )
}
