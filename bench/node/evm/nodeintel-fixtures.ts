/**
 * @module
 * The node-intelligence fixture set on a test node: Uniswap V2 around the chain's canonical wrapped
 * native, and the tokens of test/fixtures/evm/nodeintel/Tokens.sol listed with liquidity (100 native
 * against 1,000,000 tokens each, except `noLiquidity`). Deployed once per test file.
 */
import path from 'node:path'
import { getAddress, parseEther, type Abi, type Address } from 'viem'
import { projectRoot } from '../../../engine/paths.js'
import { DEAD } from '../../../engine/nodeintel/token-facts.js'
import { compileDir, type Compiled } from './solc.js'
import { addLiquidityEth, deployContract, deployUniswapV2, pairOf, write, type UniswapV2 } from './uniswap.js'
import { encodeFunctionData } from 'viem'

export const FIXTURE_DIR = path.join(projectRoot(), 'test/fixtures/evm/nodeintel')
const SUPPLY = parseEther('10000000')
export const LIQ_TOKENS = parseEther('1000000')
export const LIQ_NATIVE = parseEther('100')

export interface NodeIntelFixtures {
  readonly uni: UniswapV2
  readonly compiled: Compiled
  readonly tokens: {
    readonly clean: Address
    readonly taxed: Address
    readonly sellBlocked: Address
    readonly sellTax99: Address
    readonly blacklist: Address
    /** one sell may move at most 3,000 tokens: half of the probe's buy sells, all of it does not */
    readonly maxSell: Address
    readonly proxy: Address
    readonly proxyImplementation: Address
    readonly mintable: Address
    readonly noLiquidity: Address
    readonly nonContract: Address
  }
}

/** Deploys a fee/switch TestToken, lists it, points it at its pair and runs `after` (owner calls). */
async function testToken(
  uni: UniswapV2,
  abi: Abi,
  bytecode: string,
  name: string,
  fees: readonly [number, number, number],
  after: readonly [string, readonly unknown[]][] = []
): Promise<Address> {
  const t = await deployContract(uni, abi, bytecode, [
    name,
    name.slice(0, 4).toUpperCase(),
    SUPPLY,
    ...fees.map(BigInt)
  ])
  await addLiquidityEth(uni, t, LIQ_TOKENS, LIQ_NATIVE, { tokenAbi: abi })
  await write(uni, t, abi, 'setPair', [await pairOf(uni, t)])
  for (const [fn, args] of after) await write(uni, t, abi, fn, args)
  return t
}

export async function deployNodeIntelFixtures(url: string, wrappedNative: Address): Promise<NodeIntelFixtures> {
  const uni = await deployUniswapV2(url, { wrappedNative })
  const compiled = compileDir(FIXTURE_DIR)
  const C = (n: string): { abi: Abi; bytecode: string } => compiled[n]!
  const plain = C('PlainToken')
  const tt = C('TestToken')

  const clean = await deployContract(uni, plain.abi, plain.bytecode, ['Clean', 'CLN', SUPPLY])
  // the clean token's LP is burned (sent to 0x…dEaD), as a fair launch does
  await addLiquidityEth(uni, clean, LIQ_TOKENS, LIQ_NATIVE, { tokenAbi: plain.abi, lpTo: DEAD })
  const taxed = await testToken(uni, tt.abi, tt.bytecode, 'Taxed', [500, 1000, 200])
  const sellBlocked = await testToken(uni, tt.abi, tt.bytecode, 'Blocked', [0, 0, 0], [['setSellsBlocked', [true]]])
  const sellTax99 = await testToken(uni, tt.abi, tt.bytecode, 'Tax99', [0, 9900, 0])
  const blacklist = await testToken(uni, tt.abi, tt.bytecode, 'Blacklist', [0, 0, 0], [['setBlacklistBuyers', [true]]])

  const maxSell = await testToken(
    uni,
    tt.abi,
    tt.bytecode,
    'MaxSell',
    [0, 0, 0],
    [['setMaxSell', [parseEther('3000')]]]
  )

  const impl = await deployContract(uni, C('ProxiedToken').abi, C('ProxiedToken').bytecode)
  const init = encodeFunctionData({
    abi: C('ProxiedToken').abi,
    functionName: 'initialize',
    args: ['Proxied', 'PRX', SUPPLY, uni.account]
  })
  const proxy = await deployContract(uni, C('UpgradeableProxy').abi, C('UpgradeableProxy').bytecode, [impl, init])
  await addLiquidityEth(uni, proxy, LIQ_TOKENS, LIQ_NATIVE, { tokenAbi: C('ProxiedToken').abi })

  const mintable = await deployContract(uni, C('MintableToken').abi, C('MintableToken').bytecode, [
    'Mint',
    'MNT',
    SUPPLY
  ])
  await addLiquidityEth(uni, mintable, LIQ_TOKENS, LIQ_NATIVE, { tokenAbi: C('MintableToken').abi })

  const noLiquidity = await deployContract(uni, plain.abi, plain.bytecode, ['Lonely', 'LON', SUPPLY])
  return {
    uni,
    compiled,
    tokens: {
      clean,
      taxed,
      sellBlocked,
      sellTax99,
      blacklist,
      maxSell,
      proxy,
      proxyImplementation: impl,
      mintable,
      noLiquidity,
      nonContract: getAddress('0x000000000000000000000000000000000000bEEF')
    }
  }
}

/** The API server's environment for the honeypot benches: BSC on the local anvil, its DEX, no pair polling. */
export function nodeIntelServerEnv(anvilUrl: string, fx: NodeIntelFixtures): Record<string, string> {
  return {
    SOURCES: 'none',
    BSC_RPC_URL: anvilUrl,
    BSC_RPC_RATE: '100000',
    BSC_DEX_ROUTER: fx.uni.router,
    BSC_DEX_FACTORY: fx.uni.factory,
    NODEINTEL_NEW_PAIRS_POLL_MS: '0'
  }
}
