/**
 * The EVM test harness itself (test/helpers/evm): anvil on a free port with the chain id asked for, the
 * Uniswap V2 artifacts deployed with WETH9 at the chain's canonical wrapped-native address, liquidity added,
 * a swap quoted through the router; solc compiling a contract (cached) that then runs on the node.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { compileSol } from '../helpers/evm/solc.js'
import {
  addLiquidityEth,
  deployContract,
  deployUniswapV2,
  ERC20,
  pairOf,
  ROUTER02,
  type UniswapV2
} from '../helpers/evm/uniswap.js'

let anvil: Anvil
let uni: UniswapV2

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 43114 })
  uni = await deployUniswapV2(anvil.url, { wrappedNative: EVM_CHAINS.avalanche.wrappedNative })
})
afterAll(async () => {
  await anvil?.stop()
})

describe('EVM test harness', () => {
  it('runs anvil with the chain id asked for', async () => {
    expect(await anvil.rpc('eth_chainId')).toBe('0xa86a')
    expect(anvil.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('keeps the states anvil persists past its in-memory window in a private HOME, removed after stop', async () => {
    // anvil writes each older block's state to $HOME/.foundry/anvil/tmp once the chain outgrows its memory
    // window and never deletes it (4.5 GB per 10,000-block benchmark run filled the disk)
    const long = await startAnvil({ chainId: 1 })
    const states = path.join(long.home, '.foundry', 'anvil', 'tmp')
    try {
      await long.rpc('anvil_mine', ['0xbb8']) // 3,000 blocks
      expect(fs.readdirSync(states).length).toBeGreaterThan(0)
    } finally {
      await long.stop()
    }
    expect(fs.existsSync(long.home)).toBe(false)
  })

  it('deploys Uniswap V2 around the canonical wrapped native and quotes a swap after adding liquidity', async () => {
    expect(uni.weth).toBe(EVM_CHAINS.avalanche.wrappedNative)
    const decimals = await uni.publicClient.readContract({
      address: uni.weth,
      abi: ERC20.abi,
      functionName: 'decimals'
    })
    expect(decimals).toBe(18)
    const token = await deployContract(uni, ERC20.abi, ERC20.bytecode, [10n ** 24n])
    await addLiquidityEth(uni, token, 10n ** 23n, 10n ** 20n)
    const pair = await pairOf(uni, token)
    expect(pair).not.toBe('0x0000000000000000000000000000000000000000')
    const amounts = (await uni.publicClient.readContract({
      address: uni.router,
      abi: ROUTER02.abi,
      functionName: 'getAmountsOut',
      args: [10n ** 18n, [uni.weth, token]]
    })) as bigint[]
    expect(amounts[1]! > 0n).toBe(true)
  })

  it('compiles Solidity with npm solc (cached by content) and runs it', async () => {
    const src =
      'pragma solidity ^0.8.0; contract Answer { function get() external pure returns (uint256) { return 42; } }'
    const first = compileSol({ 'Answer.sol': src })
    const again = compileSol({ 'Answer.sol': src })
    expect(again).toEqual(first)
    expect(first['Answer']!.deployedBytecode.length).toBeGreaterThan(10)
    const address: Address = await deployContract(uni, first['Answer']!.abi, first['Answer']!.bytecode)
    const v = await uni.publicClient.readContract({ address, abi: first['Answer']!.abi, functionName: 'get' })
    expect(v).toBe(42n)
  })
})
