/**
 * @module
 * Reading a wallet simulation's answer (engine/nodeintel/wallet-sim.ts builds the request): the buy's
 * market and step decoded with the probe's ABI, the transfer, approve and sell read from the wallet's calls
 * and the balances around them, the probe contract's run decoded as a probe result, in the probe's shape so
 * engine/nodeintel/verdict.ts judges both methods alike.
 */
import { decodeFunctionResult, type Hex } from 'viem'
import { PROBE_ABI } from './probe-artifact.js'
import { decodeProbe, type ProbeResult, type ProbeStep } from './probe.js'
import {
  ROUTER_ABI,
  sellAmount,
  transferAmount,
  type CallOutcome,
  type WalletPlan,
  type WalletSimInput
} from './wallet-sim.js'

/** What one wallet simulation showed. */
export interface WalletSimResult {
  /** the market and the wallet's steps in the probe's shape (judged by engine/nodeintel/verdict.ts) */
  readonly wallet: ProbeResult
  /** the probe contract's own run in the last block (null: it did not answer) */
  readonly contract: ProbeResult | null
  /** the plan this buy gives (null: nothing bought) */
  readonly plan: WalletPlan | null
  /** the transfer and sell ran with a plan that fits what the buy delivered */
  readonly complete: boolean
}

const EMPTY_STEP: ProbeStep = { ok: false, expected: 0n, received: 0n, gasUsed: 0n, err: '0x' }

const uint = (o: CallOutcome | undefined): bigint | null => {
  if (!o || o.status !== 'success' || o.data.length < 66) return null
  try {
    return BigInt(o.data.slice(0, 66))
  } catch {
    return null
  }
}
const delta = (before: bigint | null, after: bigint | null): bigint =>
  before !== null && after !== null && after > before ? after - before : 0n
/** an ERC-20 call that passed: no revert, and no return data or a true bool */
const passed = (o: CallOutcome | undefined): boolean =>
  o !== undefined && o.status === 'success' && (o.data === '0x' || (o.data.length === 66 && BigInt(o.data) === 1n))

/** Reads a wallet simulation's answer (`input` is the request it answers); null when it holds no buy result. */
export function readWalletSim(
  input: WalletSimInput,
  blocks: readonly (readonly CallOutcome[])[]
): WalletSimResult | null {
  const buyCall = blocks[0]?.[0]
  if (!buyCall || buyCall.status !== 'success' || buyCall.data === '0x') return null
  const w = decodeFunctionResult({ abi: PROBE_ABI, functionName: 'walletBuy', data: buyCall.data })
  const m = w.market
  const bought = w.buy.ok ? w.buy.received : 0n
  const lastCall = blocks[blocks.length - 1]?.[0]
  let contract: ProbeResult | null = null
  if (blocks.length > 1 && lastCall?.status === 'success') {
    try {
      contract = decodeProbe(lastCall.data)
    } catch {
      contract = null
    }
  }
  const p = input.plan
  // the same plan object while the buy delivers the same: its encoded calls are kept with it (wallet-sim.ts)
  const plan = bought <= 0n ? null : p?.pair === m.pair && p.bought === bought ? p : { pair: m.pair, bought }
  const complete = p !== null && blocks.length === 5 && p.pair === m.pair && transferAmount(p) + sellAmount(p) <= bought
  const base = {
    blockNumber: input.head.number,
    codeSize: m.codeSize,
    decimals: m.decimals,
    pair: m.pair,
    reserveBase: m.reserveBase,
    reserveToken: m.reserveToken,
    amountIn: m.amountIn,
    buy: { ...w.buy, received: bought }
  }
  if (!complete || !p) {
    const none = {
      approveOk: false,
      sellAllOk: true,
      sell: EMPTY_STEP,
      sellSent: 0n,
      pairReceived: 0n,
      xfer: EMPTY_STEP
    }
    return { wallet: { ...base, ...none }, contract, plan, complete: false }
  }
  const [xfer, approve, sell] = [blocks[1]!, blocks[2]!, blocks[3]!]
  const sent = transferAmount(p)
  const xferStep: ProbeStep = {
    ok: passed(xfer[1]),
    expected: sent,
    received: delta(uint(xfer[0]), uint(xfer[2])),
    gasUsed: xfer[1]?.gasUsed ?? 0n,
    err: xfer[1]?.status === 'failure' ? xfer[1].data : '0x'
  }
  const quote = sell[0]?.status === 'success' ? decodeQuote(sell[0].data) : 0n
  const swap = sell[3]
  const sold = swap?.status === 'success'
  // the router masks the token's own reason (TRANSFER_FROM_FAILED): the wallet's plain transfer to the pair
  // shows it, else the probe's run when its sell failed too
  const direct = sell[6]?.status === 'failure' && sell[6].data !== '0x' ? sell[6].data : null
  const ownReason = direct ?? (contract && !contract.sell.ok && contract.sell.err !== '0x' ? contract.sell.err : null)
  const sellStep: ProbeStep = {
    ok: sold,
    expected: quote,
    received: sold ? delta(uint(sell[1]), uint(sell[4])) : 0n,
    gasUsed: swap?.gasUsed ?? 0n,
    err: sold ? '0x' : (ownReason ?? swap?.data ?? '0x')
  }
  return {
    wallet: {
      ...base,
      approveOk: passed(approve[0]),
      // selling everything at once is tried by the probe's run (a wallet's sell cannot be undone)
      sellAllOk: contract === null || !contract.sell.ok || contract.sellAllOk,
      sell: sellStep,
      sellSent: sellAmount(p),
      pairReceived: sold ? delta(uint(sell[2]), uint(sell[5])) : 0n,
      xfer: xferStep
    },
    contract,
    plan,
    complete: true
  }
}

function decodeQuote(data: Hex): bigint {
  try {
    const out = decodeFunctionResult({ abi: ROUTER_ABI, functionName: 'getAmountsOut', data })
    return out[1] ?? 0n
  } catch {
    return 0n
  }
}
