/**
 * @module
 * The re-check fixtures on a test node (tests and bench/node/recheck.ts): Uniswap V2 around the chain's
 * canonical wrapped native, the fee TestToken of test/fixtures/evm/nodeintel and the GuardedToken of
 * test/fixtures/evm/recheck, each listed with liquidity (100 native against 1,000,000 tokens) and pointed
 * at its pair.
 */
import path from 'node:path'
import { parseEther, type Abi, type Address, type Hex } from 'viem'
import { projectRoot } from '../../../engine/paths.js'
import { compileDir, type CompiledContract } from './solc.js'
import { addLiquidityEth, deployContract, deployUniswapV2, pairOf, write, type UniswapV2 } from './uniswap.js'

const SUPPLY = parseEther('10000000')
const LIQ_TOKENS = parseEther('1000000')
const LIQ_NATIVE = parseEther('100')
/** anvil's second default account: the GuardedToken's guardian (anvil signs for it) */
export const GUARDIAN: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

export interface RecheckFixtures {
  readonly uni: UniswapV2
  readonly testToken: CompiledContract
  readonly guarded: CompiledContract
}

export async function deployRecheckFixtures(url: string, wrappedNative: Address): Promise<RecheckFixtures> {
  const uni = await deployUniswapV2(url, { wrappedNative })
  const testToken = compileDir(path.join(projectRoot(), 'test/fixtures/evm/nodeintel'))['TestToken']!
  const guarded = compileDir(path.join(projectRoot(), 'test/fixtures/evm/recheck'))['GuardedToken']!
  return { uni, testToken, guarded }
}

async function list(uni: UniswapV2, abi: Abi, token: Address): Promise<Address> {
  await addLiquidityEth(uni, token, LIQ_TOKENS, LIQ_NATIVE, { tokenAbi: abi })
  await write(uni, token, abi, 'setPair', [await pairOf(uni, token)])
  return token
}

/** A TestToken without taxes whose owner (the deployer) can set them (`setFees`). */
export async function listFeeToken(f: RecheckFixtures, name: string): Promise<Address> {
  const t = await deployContract(f.uni, f.testToken.abi, f.testToken.bytecode, [name, 'FEE', SUPPLY, 0n, 0n, 0n])
  return list(f.uni, f.testToken.abi, t)
}

/** A GuardedToken whose guardian (GUARDIAN) can pause sells. */
export async function listGuardedToken(f: RecheckFixtures): Promise<Address> {
  const t = await deployContract(f.uni, f.guarded.abi, f.guarded.bytecode, [SUPPLY, GUARDIAN])
  return list(f.uni, f.guarded.abi, t)
}

/** Sends a transaction without waiting for it; its hash. */
export function send(
  f: RecheckFixtures,
  c: CompiledContract,
  token: Address,
  functionName: string,
  args: readonly unknown[],
  from: Address = f.uni.account
): Promise<Hex> {
  return f.uni.walletClient.writeContract({
    address: token,
    abi: c.abi,
    functionName,
    args: args as unknown[],
    account: from,
    chain: f.uni.chain
  })
}
