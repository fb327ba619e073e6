/**
 * The wallet simulation's request and reading (engine/nodeintel/wallet-sim.ts) and the contract-only reasons
 * (engine/nodeintel/verdict.ts), on answers built with viem's encoders:
 * - the blocks follow the head one number and STEP_GAP_S seconds apart; the wallet gets a balance and no
 *   code; without a plan only the buy and the probe's run are sent; with one, the transfer is a quarter and
 *   the sell a half of what the plan says the buy delivers;
 * - an answer is complete only when the plan fits what the buy delivered (else the plan it gives is used);
 * - the sell's reason is the token's own (the wallet's transfer to the pair), not the router's mask;
 * - a step refused to the probe contract and not to the wallet is named, nothing else is;
 * - the request's text (`walletParams`: the probe's overrides kept as text and spliced in) is the text
 *   `JSON.stringify` gives the parameters, for every budget, and the call data is viem's `encodeFunctionData`
 *   named by function, also for a plan object kept between checks of another token, router, budget or head.
 */
import { describe, expect, it } from 'vitest'
import {
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  encodeFunctionResult,
  erc20Abi,
  getAddress,
  maxUint256,
  type Address,
  type Hex
} from 'viem'
import { JsonParams, requestText } from '../../engine/chain/raw-rpc.js'
import { PROBE_ABI, PROBE_RUNTIME } from '../../engine/nodeintel/probe-artifact.js'
import { PROBE_ADDRESS, type ProbeResult, type ProbeStep } from '../../engine/nodeintel/probe.js'
import { CONTRACT_ONLY, contractOnlyReasons } from '../../engine/nodeintel/verdict.js'
import { readWalletSim } from '../../engine/nodeintel/wallet-read.js'
import {
  ROUTER_ABI,
  STEP_GAP_S,
  WALLET,
  WALLET_RECIPIENT,
  walletBlocks,
  walletParams,
  walletRequest,
  type WalletSimInput
} from '../../engine/nodeintel/wallet-sim.js'

const A = (n: number): Address => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const PAIR = A(0xaa)
const input = (plan: WalletSimInput['plan']): WalletSimInput => ({
  router: A(1),
  wrappedNative: A(2),
  token: A(3),
  maxIn: 10n ** 18n,
  gasPrice: 3_000_000_000n,
  head: { number: 1000n, timestamp: 1_700_000_000n },
  plan
})
const reason = (text: string): Hex =>
  encodeErrorResult({
    abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
    errorName: 'Error',
    args: [text]
  })
const step = (over: Partial<ProbeStep> = {}): ProbeStep => ({
  ok: true,
  expected: 0n,
  received: 0n,
  gasUsed: 1n,
  err: '0x',
  ...over
})
const market = {
  blockNumber: 1001n,
  codeSize: 5000n,
  decimals: 18n,
  pair: PAIR,
  reserveBase: 10n ** 20n,
  reserveToken: 10n ** 24n,
  amountIn: 10n ** 18n
}
const buyData = (received: bigint): Hex =>
  encodeFunctionResult({
    abi: PROBE_ABI,
    functionName: 'walletBuy',
    result: { market, buy: step({ expected: 10_000n, received }) }
  })
const probeRun = (over: Partial<ProbeResult> = {}): ProbeResult => ({
  ...market,
  buy: step({ expected: 10_000n, received: 10_000n }),
  approveOk: true,
  sellAllOk: true,
  sell: step({ expected: 100n, received: 100n }),
  sellSent: 5000n,
  pairReceived: 5000n,
  xfer: step({ expected: 2500n, received: 2500n }),
  ...over
})
const probeData = (r: ProbeResult): Hex => encodeFunctionResult({ abi: PROBE_ABI, functionName: 'probe', result: r })
const uint = (v: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [v])
const TRUE = uint(1n)
const okCall = (data: Hex) => ({ status: 'success' as const, data, gasUsed: 50_000n })
const failCall = (data: Hex) => ({ status: 'failure' as const, data, gasUsed: 30_000n })

/** the answer to a full request: buy of `bought`, transfer, approve, sell (as given), the probe's run */
function answer(bought: bigint, sell: 'ok' | 'blocked', run = probeRun()) {
  const sold = sell === 'ok'
  return [
    [okCall(buyData(bought))],
    [okCall(uint(0n)), okCall(TRUE), okCall(uint(2400n))],
    [okCall(TRUE)],
    [
      okCall(encodeAbiParameters([{ type: 'uint256[]' }], [[5000n, 100n]])),
      okCall(uint(0n)),
      okCall(uint(10n ** 24n)),
      sold ? okCall('0x') : failCall(reason('TransferHelper: TRANSFER_FROM_FAILED')),
      okCall(uint(sold ? 90n : 0n)),
      okCall(uint(10n ** 24n + (sold ? 4600n : 0n))),
      sold ? okCall(TRUE) : failCall(reason('sells disabled'))
    ],
    [okCall(probeData(run))]
  ]
}

describe('walletBlocks', () => {
  it('without a plan: the buy alone (probe code and funds by override, the wallet without code)', () => {
    const blocks = walletBlocks(input(null))
    expect(blocks).toHaveLength(1)
    expect(blocks.map((b) => b.blockOverrides.number)).toEqual([1001n])
    expect(blocks.map((b) => b.blockOverrides.time)).toEqual([1_700_000_000n + STEP_GAP_S])
    const overrides = blocks[0]!.stateOverrides!
    expect(overrides.find((o) => o.address === PROBE_ADDRESS)?.code).toBe(PROBE_RUNTIME)
    const wallet = overrides.find((o) => o.address === WALLET)!
    expect(wallet.balance).toBeGreaterThan(0n)
    expect(wallet.code).toBeUndefined()
    expect(blocks[0]!.calls[0]).toMatchObject({ account: WALLET, to: PROBE_ADDRESS, value: 10n ** 18n })
  })

  it('with a plan: five blocks, the transfer a quarter and the sell a half of the planned buy', () => {
    const blocks = walletBlocks(input({ pair: PAIR, bought: 8000n }))
    expect(blocks).toHaveLength(5)
    expect(blocks.map((b) => b.blockOverrides.number)).toEqual([1001n, 1002n, 1003n, 1004n, 1005n])
    expect(blocks[4]!.blockOverrides.time - blocks[3]!.blockOverrides.time).toBe(STEP_GAP_S)
    // as JSON-RPC takes them: quantities in hex, on the head block
    const [params, block] = walletRequest(input({ pair: PAIR, bought: 8000n })) as [any, string]
    expect(block).toBe('0x3e8')
    expect(params.validation).toBe(false)
    expect(params.blockStateCalls[0].blockOverrides.number).toBe('0x3e9')
    expect(params.blockStateCalls[0].stateOverrides[WALLET]).toEqual({ balance: expect.stringMatching(/^0x/) })
    expect(params.blockStateCalls[1].calls[1]).toMatchObject({ from: WALLET, gasPrice: '0xb2d05e00' })
    const data = (b: number, c: number): string => (blocks[b]!.calls[c] as { data: Hex }).data
    expect(data(1, 1)).toContain(2000n.toString(16).padStart(64, '0')) // transfer(recipient, 2000)
    expect(data(3, 3)).toContain(4000n.toString(16).padStart(64, '0')) // swap(4000, ...)
    for (const b of blocks.slice(1, 4))
      for (const c of b.calls) expect((c as { account: Address }).account).toBe(WALLET)
  })
})

describe('the request as sent', () => {
  it("walletParams is JSON.stringify of walletRequest's parameters, with and without a plan, per budget", () => {
    for (const maxIn of [10n ** 18n, 5n * 10n ** 17n, 10n ** 18n])
      for (const plan of [null, { pair: PAIR, bought: 8000n }]) {
        const i = { ...input(plan), maxIn }
        const text = walletParams(i).text
        expect(text).toBe(JSON.stringify(walletRequest(i)))
        expect(text).toContain(PROBE_RUNTIME)
        expect(requestText(7, 'eth_simulateV1', walletParams(i))).toBe(
          JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_simulateV1', params: walletRequest(i) })
        )
      }
    // the params as text serialize as the params themselves where a transport stringifies them (viem's)
    const p = walletRequest(input(null))
    expect(JSON.stringify({ params: new JsonParams(JSON.stringify(p)) })).toBe(JSON.stringify({ params: p }))
  })

  /** each block's call data as viem's encodeFunctionData named by function writes it for `i` */
  function expectedData(i: WalletSimInput): Hex[][] {
    const [router, wrapped, token] = [i.router, i.wrappedNative, i.token]
    const path = [token, wrapped] as const
    const deadline = i.head.timestamp + 4n * STEP_GAP_S + 1200n
    const bought = i.plan!.bought
    const pair = i.plan!.pair
    const balanceOf = (who: Address): Hex =>
      encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [who] })
    return [
      [encodeFunctionData({ abi: PROBE_ABI, functionName: 'walletBuy', args: [router, wrapped, token] })],
      [
        balanceOf(WALLET_RECIPIENT),
        encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [WALLET_RECIPIENT, bought / 4n] }),
        balanceOf(WALLET_RECIPIENT)
      ],
      [encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, maxUint256] })],
      [
        encodeFunctionData({ abi: ROUTER_ABI, functionName: 'getAmountsOut', args: [bought / 2n, path] }),
        balanceOf(WALLET),
        balanceOf(pair),
        encodeFunctionData({
          abi: ROUTER_ABI,
          functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens',
          args: [bought / 2n, 0n, path, WALLET, deadline]
        }),
        balanceOf(WALLET),
        balanceOf(pair),
        encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [pair, 1n] })
      ],
      [encodeFunctionData({ abi: PROBE_ABI, functionName: 'probe', args: [router, wrapped, token, i.maxIn] })]
    ]
  }

  it("every call's data is viem's encodeFunctionData named by function", () => {
    const i = input({ pair: PAIR, bought: 8000n })
    const blocks = walletBlocks(i)
    expect(blocks.map((b) => b.calls.map((c) => c.data))).toEqual(expectedData(i))
    expect(expectedData(i)[1]![1]).toBe(
      encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [WALLET_RECIPIENT, 2000n] })
    )
    const [router, wrapped, token] = [i.router, i.wrappedNative, i.token]
    expect(blocks[1]!.calls.map((c) => c.to)).toEqual([token, token, token])
    expect(blocks[3]!.calls.map((c) => c.to)).toEqual([router, wrapped, token, router, wrapped, token, token])
  })

  it('a plan kept between checks gives the call data of each check’s own token, router, budget and head', () => {
    const plan = { pair: PAIR, bought: 8000n }
    const base = input(plan)
    for (const i of [
      base,
      base,
      { ...base, head: { number: 1005n, timestamp: 1_700_000_015n } },
      { ...base, token: A(4) },
      { ...base, router: A(5), wrappedNative: A(6) },
      { ...base, maxIn: 5n * 10n ** 17n },
      base
    ]) {
      expect(walletBlocks(i).map((b) => b.calls.map((c) => c.data))).toEqual(expectedData(i))
      expect(walletParams(i).text).toBe(JSON.stringify(walletRequest(i)))
    }
  })
})

describe('readWalletSim', () => {
  it('a full answer: taxes’ inputs read from the balances, the sell-all check from the probe’s run', () => {
    const i = input({ pair: PAIR, bought: 10_000n })
    const r = readWalletSim(i, answer(10_000n, 'ok', probeRun({ sellAllOk: false })))!
    expect(r.complete).toBe(true)
    expect(r.plan).toBe(i.plan) // the same object while the buy delivers the same: its call data kept with it
    expect(r.wallet.blockNumber).toBe(1000n)
    expect(r.wallet.xfer).toMatchObject({ ok: true, expected: 2500n, received: 2400n })
    expect(r.wallet.sell).toMatchObject({ ok: true, expected: 100n, received: 90n })
    expect(r.wallet).toMatchObject({ approveOk: true, sellSent: 5000n, pairReceived: 4600n, sellAllOk: false })
  })

  it('a failed sell carries the token’s own reason, not the router’s', () => {
    const r = readWalletSim(input({ pair: PAIR, bought: 10_000n }), answer(10_000n, 'blocked'))!
    expect(r.wallet.sell.ok).toBe(false)
    expect(r.wallet.sell.err).toBe(reason('sells disabled'))
  })

  it('a plan the buy no longer fits is not complete, and gives the plan to use', () => {
    const r = readWalletSim(input({ pair: PAIR, bought: 20_000n }), answer(10_000n, 'ok'))!
    expect(r.complete).toBe(false)
    expect(r.plan).toEqual({ pair: PAIR, bought: 10_000n })
    const first = readWalletSim(input(null), [[okCall(buyData(10_000n))]])!
    expect(first).toMatchObject({ complete: false, plan: { pair: PAIR, bought: 10_000n }, contract: null })
  })

  it('no buy result (the call failed or answered nothing): null', () => {
    expect(readWalletSim(input(null), [[failCall(reason('no'))]])).toBeNull()
    expect(readWalletSim(input(null), [[okCall('0x')]])).toBeNull()
  })
})

describe('contractOnlyReasons', () => {
  const wallet = probeRun()
  it('names the steps the probe contract failed where the wallet passed', () => {
    expect(contractOnlyReasons(wallet, probeRun({ buy: step({ ok: false, err: reason('no bots') }) }))).toEqual([
      `${CONTRACT_ONLY} the probe contract's buy reverted (no bots) where the wallet's passed`
    ])
    const both = contractOnlyReasons(
      wallet,
      probeRun({
        sell: step({ ok: false, err: reason('cooldown') }),
        xfer: step({ ok: false, expected: 5n, err: reason('cooldown') })
      })
    )
    expect(both).toHaveLength(2)
    expect(both.join(' ')).toMatch(/sell reverted \(cooldown\).*transfer reverted \(cooldown\)/)
  })

  it('nothing when both behave alike, or when the wallet failed too', () => {
    expect(contractOnlyReasons(wallet, probeRun())).toEqual([])
    const blocked = probeRun({ sell: step({ ok: false, err: reason('sells disabled') }) })
    expect(contractOnlyReasons(blocked, blocked)).toEqual([])
  })
})
