/**
 * @module
 * A Uniswap V2 exchange on a test node, from the npm artifacts as published (no compilation): WETH9 and
 * UniswapV2Router02 from `@uniswap/v2-periphery`, UniswapV2Factory from `@uniswap/v2-core`. The pair
 * init-code hash of these artifacts is the one Router02 embeds, so they work together as they are.
 * PancakeSwap V2 and Trader Joe V1 are forks with the same interface (node intelligence only uses
 * `factory()`, `getAmountsOut`, `swapExactTokensForTokensSupportingFeeOnTransferTokens` and `getPair`).
 */
import { createRequire } from 'node:module'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type WalletClient
} from 'viem'

const require = createRequire(import.meta.url)

interface Artifact {
  readonly abi: Abi
  readonly bytecode: string
}
const artifact = (pkg: string, name: string): Artifact => require(`@uniswap/${pkg}/build/${name}.json`) as Artifact

export const WETH9 = artifact('v2-periphery', 'WETH9')
export const ROUTER02 = artifact('v2-periphery', 'UniswapV2Router02')
export const FACTORY = artifact('v2-core', 'UniswapV2Factory')
export const PAIR = artifact('v2-core', 'UniswapV2Pair')
export const ERC20 = artifact('v2-core', 'ERC20')

/** anvil's first funded account (well-known test mnemonic; unlocked on the node, which signs) */
export const ANVIL_ACCOUNT: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

export interface EvmTestClients {
  readonly chain: Chain
  readonly publicClient: PublicClient
  readonly walletClient: WalletClient
  readonly account: Address
}

export interface UniswapV2 extends EvmTestClients {
  readonly weth: Address
  readonly factory: Address
  readonly router: Address
}

/** viem clients on a test node (anvil signs for its unlocked accounts). */
export async function testClients(url: string): Promise<EvmTestClients> {
  const probe = createPublicClient({ transport: http(url) })
  const id = await probe.getChainId()
  const chain = defineChain({
    id,
    name: `test-${id}`,
    nativeCurrency: { name: 'Native', symbol: 'NAT', decimals: 18 },
    rpcUrls: { default: { http: [url] } }
  })
  const publicClient = createPublicClient({ chain, transport: http(url), pollingInterval: 50 }) as PublicClient
  const walletClient = createWalletClient({ chain, transport: http(url), account: ANVIL_ACCOUNT })
  return { chain, publicClient, walletClient, account: ANVIL_ACCOUNT }
}

/** Sends a transaction (mined at once on anvil) and fails on a revert. */
export async function sendTx(c: EvmTestClients, hash: Promise<Hex>): Promise<void> {
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash: await hash })
  if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`)
}

/** Deploys creation code with constructor arguments; returns the new address. */
export async function deployContract(
  c: EvmTestClients,
  abi: Abi,
  bytecode: string,
  args: readonly unknown[] = [],
  value?: bigint
): Promise<Address> {
  const hash = await c.walletClient.deployContract({
    abi,
    bytecode: (bytecode.startsWith('0x') ? bytecode : `0x${bytecode}`) as Hex,
    args: args as unknown[],
    account: c.account,
    chain: c.chain,
    ...(value === undefined ? {} : { value })
  })
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deployment reverted')
  return getAddress(receipt.contractAddress)
}

/** Calls a state-changing function and waits for it. */
export async function write(
  c: EvmTestClients,
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[] = [],
  value?: bigint
): Promise<void> {
  await sendTx(
    c,
    c.walletClient.writeContract({
      address,
      abi,
      functionName,
      args: args as unknown[],
      account: c.account,
      chain: c.chain,
      ...(value === undefined ? {} : { value })
    })
  )
}

/**
 * WETH9, factory and router. With `wrappedNative`, WETH9 is placed at that address (its code and its three
 * initialized slots, name/symbol/decimals, are copied there with anvil_setCode / anvil_setStorageAt), so
 * the chain's canonical wrapped-native address (engine/chain/chains.ts) works on the test node.
 */
export async function deployUniswapV2(
  url: string,
  opts: { readonly wrappedNative?: Address } = {}
): Promise<UniswapV2> {
  const c = await testClients(url)
  let weth = await deployContract(c, WETH9.abi, WETH9.bytecode)
  if (opts.wrappedNative) {
    const target = getAddress(opts.wrappedNative)
    const rpc = (method: string, params: unknown[]): Promise<unknown> =>
      c.publicClient.request({ method: method as 'eth_chainId', params: params as never })
    const code = await c.publicClient.getCode({ address: weth })
    await rpc('anvil_setCode', [target, code])
    for (let slot = 0; slot < 3; slot++) {
      const key = `0x${slot.toString(16).padStart(64, '0')}`
      const value = await c.publicClient.getStorageAt({ address: weth, slot: key as Hex })
      await rpc('anvil_setStorageAt', [target, key, value])
    }
    weth = target
  }
  const factory = await deployContract(c, FACTORY.abi, FACTORY.bytecode, [c.account])
  const router = await deployContract(c, ROUTER02.abi, ROUTER02.bytecode, [factory, weth])
  return { ...c, weth, factory, router }
}

/** Adds `tokenAmount` of `token` and `nativeAmount` of the native coin as liquidity (creates the pair). */
export async function addLiquidityEth(
  u: UniswapV2,
  token: Address,
  tokenAmount: bigint,
  nativeAmount: bigint,
  opts: { readonly tokenAbi?: Abi; readonly lpTo?: Address } = {}
): Promise<void> {
  await write(u, token, opts.tokenAbi ?? ERC20.abi, 'approve', [u.router, tokenAmount])
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
  await write(
    u,
    u.router,
    ROUTER02.abi,
    'addLiquidityETH',
    [token, tokenAmount, 0n, 0n, opts.lpTo ?? u.account, deadline],
    nativeAmount
  )
}

/** The pair of `token` and the wrapped native (zero address when none). */
export async function pairOf(u: UniswapV2, token: Address): Promise<Address> {
  return (await u.publicClient.readContract({
    address: u.factory,
    abi: FACTORY.abi,
    functionName: 'getPair',
    args: [token, u.weth]
  })) as Address
}
