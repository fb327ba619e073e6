/**
 * What the evm:<chain> whale source says moved, on a real local node (anvil, chain id 56) with a Uniswap V2
 * deployment from the npm artifacts whose WETH9 is not at the catalog's WBNB address but where it was
 * deployed, named to the source by BSC_WRAPPED_NATIVE (a fork's own wrapped native):
 *
 * - a 2,000 BNB coin transfer between two watched wallets is labelled BNB with that amount, although the watch
 *   list has a `native` row and then a WBNB row for the wrapped token;
 * - adding liquidity (addLiquidityETH) and removing it (removeLiquidityETH) give no event: no swap, no LP
 *   token, no raw address as a token;
 * - a sell through the router (swapExactTokensForETH: the router unwraps and pays the coin through an
 *   internal call) is a swap into BNB, which only the configured wrapped native's Withdrawal log can show;
 * - a buy and a sale of a token off the watch list whose decimals() reverts (it has none) are swaps naming it
 *   by its address, its amount in raw units, `decimals_unknown` saying which side, valued on the BNB side.
 */
import fs from 'node:fs'
import path from 'node:path'
import { getAddress, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { compileDir } from '../helpers/evm/solc.js'
import { addLiquidityEth, deployContract, pairOf, PAIR } from '../helpers/evm/uniswap.js'
import { jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { until } from '../helpers/until.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BEHIND, seedPrice } from '../fixtures/evm/whales/harness.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import {
  ACCOUNTS,
  addLiquidityFrom,
  buyWithCoin,
  deployScenario,
  E18,
  removeLiquidityFrom,
  sellForCoin,
  sendCoin,
  transfer,
  type Scenario
} from '../fixtures/evm/whales/scenario.js'

const BNB_PRICE = 600
let anvil: Anvil
let s: Scenario
let server: Awaited<ReturnType<typeof startTestServer>>
const lists = tmpDir()
const hashes: Record<string, string> = {}
/** the token with no decimals(), off the watch list (lower-case) */
let noDecimals: string

/**
 * the watch list: the coin's `native` row, then the wrapped token's row (the order that once relabelled the
 * coin); and the BBB/WBNB pair's LP token, so a liquidity add could be told as a swap into it
 */
function writeWatchlist(dir: string, pair: Address): void {
  fs.mkdirSync(dir, { recursive: true })
  const src = 'https://example.test/labels'
  fs.writeFileSync(
    path.join(dir, 'test.tokens.csv'),
    [
      'chain,address,symbol,decimals,price_asset,source',
      `bsc,native,BNB,18,BNB,${src}`,
      `bsc,${s.uni.weth.toLowerCase()},WBNB,18,BNB,${src}`,
      `bsc,${s.bbb.toLowerCase()},BBB,18,BBB,${src}`,
      `bsc,${pair.toLowerCase()},BBB-WBNB-LP,18,LP,${src}`
    ].join('\n')
  )
  fs.writeFileSync(
    path.join(dir, 'test.wallets.csv'),
    [
      'chain,address,label,entity,owner,source',
      `bsc,${ACCOUNTS.exchange1},TestEx 1,exchange,TestEx,${src}`,
      `bsc,${ACCOUNTS.whale},Test whale,whale,Test whale,${src}`
    ].join('\n')
  )
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56, args: BEHIND() })
  s = await deployScenario(anvil.url, 'bsc', { wrappedNative: 'deployed' })
  expect(s.uni.weth.toLowerCase()).not.toBe(EVM_CHAINS.bsc.wrappedNative.toLowerCase())
  const nd = compileDir(path.join(import.meta.dirname, '../fixtures/evm/whales')).NoDecimalsToken!
  const ndToken = await deployContract(s.uni, nd.abi, nd.bytecode, [10n ** 30n])
  noDecimals = ndToken.toLowerCase()
  await expect(
    s.uni.publicClient.readContract({
      address: ndToken,
      abi: [{ type: 'function', name: 'decimals', inputs: [], outputs: [{ type: 'uint8' }], stateMutability: 'view' }],
      functionName: 'decimals'
    })
  ).rejects.toThrow()
  await addLiquidityEth(s.uni, ndToken, 10n ** 27n, 2_000n * E18, { tokenAbi: nd.abi })
  const pair = await pairOf(s.uni, s.bbb)
  writeWatchlist(path.join(lists.dir, 'w'), pair)
  const start = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  server = await startTestServer({
    SOURCES: 'evm:bsc',
    BSC_RPC_URL: anvil.url,
    BSC_CONFIRMATIONS: '1',
    BSC_START_BLOCK: String(start + 1),
    BSC_POLL_MS: '50',
    BSC_WRAPPED_NATIVE: s.uni.weth,
    WATCHLIST_DIR: path.join(lists.dir, 'w')
  })
  await seedPrice(server.base, 'BNB', BNB_PRICE)
  hashes.coin = await sendCoin(s, ACCOUNTS.exchange1, ACCOUNTS.whale, 2_000n * E18)
  hashes.fund = await transfer(s, s.bbb, s.deployer, ACCOUNTS.whale, 300_000n * E18)
  // 200 BNB (120,000 USD) and as much BBB: the pool receiving them would be worth an event of an unwatched wallet
  hashes.add = await addLiquidityFrom(s, ACCOUNTS.whale, s.bbb, 200_000n * E18, 200n * E18)
  const lp = (await s.uni.publicClient.readContract({
    address: pair,
    abi: PAIR.abi,
    functionName: 'balanceOf',
    args: [ACCOUNTS.whale as Address]
  })) as bigint
  expect(lp).toBeGreaterThan(0n)
  hashes.remove = await removeLiquidityFrom(s, ACCOUNTS.whale, s.bbb, pair, lp / 2n)
  hashes.sell = await sellForCoin(s, ACCOUNTS.whale, s.bbb, 50_000n * E18)
  hashes.buy = await buyWithCoin(s, ACCOUNTS.whale, s.bbb, 300n * E18)
  hashes.ndBuy = await buyWithCoin(s, ACCOUNTS.whale, ndToken, 1_000n * E18)
  hashes.ndSell = await sellForCoin(s, ACCOUNTS.whale, ndToken, 10n ** 26n)
  const last = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  await until(
    'the source to reach the last block',
    async () => {
      const h = await jsonBody(await fetch(`${server.base}/v1/health`))
      return h.sources.find((x: any) => x.name === 'evm:bsc')?.chain?.last_processed >= last
    },
    55_000
  )
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await anvil?.stop()
  lists.cleanup()
})

async function chainEvents(tx: string): Promise<any[]> {
  return server.running.ctx.store.query(
    `SELECT address, event_type, token, amount, token_in, amount_in, usd_value, label, status
     FROM chain_whale_events FINAL WHERE tx_hash = {tx:String} ORDER BY address`,
    { tx: tx.toLowerCase() }
  )
}

/** the coin the whale got back from the router in `tx`: its balance change plus the gas it paid, wei */
async function coinReceived(tx: string): Promise<bigint> {
  const receipt = await s.uni.publicClient.getTransactionReceipt({ hash: tx as `0x${string}` })
  const at = (n: bigint): Promise<bigint> =>
    s.uni.publicClient.getBalance({ address: ACCOUNTS.whale as Address, blockNumber: n })
  const delta = (await at(receipt.blockNumber)) - (await at(receipt.blockNumber - 1n))
  return delta + receipt.gasUsed * receipt.effectiveGasPrice
}

describe('evm whale source labels what moved (anvil, chain id 56, BSC_WRAPPED_NATIVE)', () => {
  it('a 2,000 BNB coin transfer between watched wallets is BNB on both sides, not the wrapped token', async () => {
    const rows = await chainEvents(hashes.coin!)
    expect(rows.map((r) => [r.address, r.event_type, r.token, r.amount, r.usd_value, r.label])).toEqual(
      [
        [ACCOUNTS.exchange1, 'transfer_out', 'BNB', 2_000, 2_000 * BNB_PRICE, 'TestEx 1'],
        [ACCOUNTS.whale, 'transfer_in', 'BNB', 2_000, 2_000 * BNB_PRICE, 'Test whale']
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    )
    const page = await jsonBody(
      await fetch(`${server.base}/v1/admin/watchlists`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
    )
    expect(page.tokens).toBe(4) // the native row and the WBNB row were both read
  })

  it('adding and removing liquidity is no event: no swap, no LP token (even a watched one), no raw address', async () => {
    for (const tx of [hashes.add!, hashes.remove!]) {
      const receipt = await s.uni.publicClient.getTransactionReceipt({ hash: tx as `0x${string}` })
      expect(receipt.status).toBe('success')
      expect(await chainEvents(tx)).toEqual([])
    }
    // the only rows naming an address are the trades of the token without decimals(), never an LP token
    const odd = await server.running.ctx.store.query<{ tx_hash: string }>(
      `SELECT tx_hash FROM chain_whale_events FINAL WHERE chain = 'bsc' AND (token LIKE '0x%' OR token_in LIKE '0x%')`
    )
    expect(odd.map((r) => r.tx_hash).sort()).toEqual([hashes.ndBuy!, hashes.ndSell!].sort())
  })

  it('a sell through the router is a swap into BNB: the configured wrapped native unwraps for the whale', async () => {
    const rows = await chainEvents(hashes.sell!)
    expect(rows).toHaveLength(1)
    const received = await coinReceived(hashes.sell!)
    expect(received).toBeGreaterThan(0n)
    expect(rows[0]).toMatchObject({
      address: ACCOUNTS.whale,
      event_type: 'swap',
      token: 'BNB',
      token_in: 'BBB',
      amount_in: 50_000,
      label: 'Test whale',
      status: 'confirmed'
    })
    expect(rows[0].amount).toBeCloseTo(Number(received) / 1e18, 9)
    expect(rows[0].usd_value).toBeCloseTo((Number(received) / 1e18) * BNB_PRICE, 3)
  })

  it('a buy with the coin is a swap of BNB for BBB, and the router that wrapped it has no event', async () => {
    const rows = await chainEvents(hashes.buy!)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      address: ACCOUNTS.whale,
      event_type: 'swap',
      token: 'BBB',
      token_in: 'BNB',
      amount_in: 300,
      usd_value: 300 * BNB_PRICE
    })
  })

  it('a buy and a sale of a token without decimals() off the watch list: swaps naming it by address in raw units, valued on BNB', async () => {
    const whaleBalance = (block: bigint): Promise<bigint> =>
      s.uni.publicClient.readContract({
        address: getAddress(noDecimals),
        abi: PAIR.abi,
        functionName: 'balanceOf',
        args: [ACCOUNTS.whale as Address],
        blockNumber: block
      }) as Promise<bigint>
    const buyReceipt = await s.uni.publicClient.getTransactionReceipt({ hash: hashes.ndBuy as `0x${string}` })
    const bought = (await whaleBalance(buyReceipt.blockNumber)) - (await whaleBalance(buyReceipt.blockNumber - 1n))
    expect(bought).toBeGreaterThan(10n ** 26n)
    const buy = await chainEvents(hashes.ndBuy!)
    expect(buy).toHaveLength(1)
    expect(buy[0]).toMatchObject({
      address: ACCOUNTS.whale,
      event_type: 'swap',
      token: noDecimals,
      token_in: 'BNB',
      amount_in: 1_000,
      usd_value: 1_000 * BNB_PRICE,
      label: 'Test whale'
    })
    expect(buy[0].amount).toBe(Number(bought)) // raw units
    const sale = await chainEvents(hashes.ndSell!)
    expect(sale).toHaveLength(1)
    expect(sale[0]).toMatchObject({ event_type: 'swap', token: 'BNB', token_in: noDecimals, amount_in: 1e26 })
    expect(sale[0].usd_value).toBeCloseTo(sale[0].amount * BNB_PRICE, 3)
    // the read API says which side is in raw units
    let page: any
    await until(
      'both trades in /v1/whales/events',
      async () => {
        page = await jsonBody(await fetch(`${server.base}/v1/whales/events?chain=bsc&significance=low&limit=200`))
        return [hashes.ndBuy, hashes.ndSell].every((h) => page.events.some((e: any) => e.tx_hash === h))
      },
      30_000
    )
    const byTx = (tx: string): any => page.events.find((e: any) => e.tx_hash === tx)
    expect(byTx(hashes.ndBuy!)).toMatchObject({ token: noDecimals, decimals_unknown: 'token', token_in: 'BNB' })
    expect(byTx(hashes.ndSell!)).toMatchObject({ token: 'BNB', token_in: noDecimals, decimals_unknown: 'token_in' })
    expect(byTx(hashes.buy!)).toMatchObject({ token: 'BBB', decimals_unknown: null })
  })
})
