/**
 * @module
 * The chain benchmarks on a local anvil node (chain id 1), one run per process (chDB binds one data
 * directory per process): `node dist/bench/chain/node-variant.js <backfill|bare|live> <dataDir>`. One JSON line.
 *
 * - backfill: BLOCKS blocks (TRANSFERS of them with a whale USDC transfer between watched wallets, the rest
 *   empty), read by the evm:ethereum source from its start block to the head, the server running as users run
 *   it (watch list with wallets on the chain, so every block is also read for coin transfers): blocks/s from
 *   the source's start to its checkpoint at the head, and JSON-RPC calls per block.
 * - bare: the reference, the node's own pace for the same minimal reads: eth_getLogs over the same tracked
 *   tokens in the source's span (2,000 blocks) plus eth_getBlockByNumber with transactions for every block,
 *   through plain viem, nothing decoded or stored.
 * - live: anvil mining a block every second with a whale transfer in each, for LIVE_S seconds; the lag of
 *   each block = time the source's checkpoint reached it - time a 20 ms watcher first saw it at the node
 *   (median, p99, max; target < 2 s). The source is woken by the WebSocket subscription (ETHEREUM_WS_URL).
 */
import fs from 'node:fs'
import path from 'node:path'
import { createPublicClient, http, type Address, type Hex } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { start } from '../../server/start.js'
import { startAnvil, type Anvil } from '../node/evm/anvil.js'
import { deployContract, deployUniswapV2, ERC20, type UniswapV2 } from '../node/evm/uniswap.js'
import { TOKEN_TOPICS } from '../../ingest/normalize/chain/evm-topics.js'

const BLOCKS = Number(process.env['BENCH_CHAIN_BLOCKS'] ?? 10_000)
const TRANSFERS = Number(process.env['BENCH_CHAIN_TRANSFERS'] ?? 200)
const LIVE_S = Number(process.env['BENCH_CHAIN_LIVE_S'] ?? 20)
const WHALE = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

async function fixture(anvil: Anvil): Promise<{ uni: UniswapV2; usdc: Address }> {
  const uni = await deployUniswapV2(anvil.url, { wrappedNative: EVM_CHAINS.ethereum.wrappedNative })
  const usdc = await deployContract(uni, ERC20.abi, ERC20.bytecode, [10n ** 30n])
  return { uni, usdc }
}

function watchlist(dir: string, usdc: string): string {
  const lists = path.join(dir, 'lists')
  fs.mkdirSync(lists, { recursive: true })
  const src = 'https://example.test/bench'
  fs.writeFileSync(
    path.join(lists, 'bench.tokens.csv'),
    `chain,address,symbol,decimals,price_asset,source\nethereum,${usdc},USDC,18,USD,${src}\nethereum,${EVM_CHAINS.ethereum.wrappedNative},WETH,18,ETH,${src}\n`
  )
  fs.writeFileSync(
    path.join(lists, 'bench.wallets.csv'),
    `chain,address,label,entity,owner,source\nethereum,${WHALE},Bench whale,whale,Bench whale,${src}\n`
  )
  return lists
}

async function transferTx(uni: UniswapV2, usdc: Address, to: string): Promise<Hex> {
  return uni.walletClient.writeContract({
    address: usdc,
    abi: ERC20.abi,
    functionName: 'transfer',
    args: [to, 1_000_000n * 10n ** 18n],
    account: uni.account,
    chain: uni.chain
  })
}

async function head(anvil: Anvil): Promise<number> {
  return Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
}

/** BLOCKS blocks: TRANSFERS whale transfers spread evenly, empty blocks between */
async function history(anvil: Anvil, uni: UniswapV2, usdc: Address): Promise<{ first: number; last: number }> {
  const first = (await head(anvil)) + 1
  const gap = Math.max(1, Math.floor(BLOCKS / TRANSFERS) - 1)
  while ((await head(anvil)) - first + 1 < BLOCKS) {
    await uni.publicClient.waitForTransactionReceipt({ hash: await transferTx(uni, usdc, WHALE) })
    const left = BLOCKS - ((await head(anvil)) - first + 1)
    if (left > 0) await anvil.rpc('anvil_mine', [`0x${Math.min(gap, left).toString(16)}`])
  }
  return { first, last: await head(anvil) }
}

async function serve(dir: string, env: Record<string, string>) {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dir, 'data'),
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    CHDB_POOL_SIZE: '4',
    // the backfill write groups as set for the benchmark (docs/sources.md; unset: the service's defaults)
    ...Object.fromEntries(
      ['CHAIN_WRITE_EVENTS', 'CHAIN_WRITE_HOLD_MS'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : []))
    ),
    ...env
  })
  const running = await start(config, silentLogger())
  await running.ready
  return running
}

type ChainStatus = { chain: { last_processed: number | null; rpc_calls: number } }

function status(running: Awaited<ReturnType<typeof serve>>): ChainStatus {
  return running.ctx.sources.find((s) => s.name === 'evm:ethereum')!.status() as unknown as ChainStatus
}

async function backfill(dir: string): Promise<Record<string, number>> {
  const anvil = await startAnvil({ chainId: 1 })
  try {
    const { uni, usdc } = await fixture(anvil)
    const { first, last } = await history(anvil, uni, usdc)
    const lists = watchlist(dir, usdc)
    const t0 = performance.now()
    const running = await serve(dir, {
      SOURCES: 'evm:ethereum',
      ETHEREUM_RPC_URL: anvil.url,
      ETHEREUM_CONFIRMATIONS: '1',
      ETHEREUM_START_BLOCK: String(first),
      ETHEREUM_POLL_MS: '20',
      ETHEREUM_RPC_RATE: '100000',
      WATCHLIST_DIR: lists
    })
    while ((status(running).chain.last_processed ?? 0) < last) await new Promise((r) => setTimeout(r, 20))
    const ms = performance.now() - t0
    const calls = status(running).chain.rpc_calls
    const [events] = await running.ctx.store.query<{ n: number }>('SELECT count() AS n FROM chain_whale_events FINAL')
    await running.stop()
    const blocks = last - first + 1
    return {
      blocks,
      ms: Math.round(ms),
      blocks_per_s: Math.round(blocks / (ms / 1000)),
      rpc_calls: calls,
      rpc_calls_per_block: Math.round((calls / blocks) * 100) / 100,
      events: Number(events!.n)
    }
  } finally {
    await anvil.stop()
  }
}

async function bare(dir: string): Promise<Record<string, number>> {
  void dir
  const anvil = await startAnvil({ chainId: 1 })
  try {
    const { uni, usdc } = await fixture(anvil)
    const { first, last } = await history(anvil, uni, usdc)
    const client = createPublicClient({ transport: http(anvil.url, { batch: true }) })
    const t0 = performance.now()
    let calls = 0
    for (let a = first; a <= last; a += 2_000) {
      const b = Math.min(last, a + 1_999)
      await client.request({
        method: 'eth_getLogs',
        params: [
          {
            fromBlock: `0x${a.toString(16)}`,
            toBlock: `0x${b.toString(16)}`,
            address: [usdc, EVM_CHAINS.ethereum.wrappedNative],
            topics: [TOKEN_TOPICS as Hex[]]
          }
        ]
      })
      calls++
    }
    for (let n = first; n <= last; n++) {
      await client.getBlock({ blockNumber: BigInt(n), includeTransactions: true })
      calls++
    }
    const ms = performance.now() - t0
    const blocks = last - first + 1
    return {
      blocks,
      ms: Math.round(ms),
      blocks_per_s: Math.round(blocks / (ms / 1000)),
      rpc_calls: calls,
      rpc_calls_per_block: Math.round((calls / blocks) * 100) / 100
    }
  } finally {
    await anvil.stop()
  }
}

async function live(dir: string): Promise<Record<string, number>> {
  const anvil = await startAnvil({ chainId: 1, blockTimeSec: 1 })
  try {
    const { uni, usdc } = await fixture(anvil)
    const lists = watchlist(dir, usdc)
    const first = (await head(anvil)) + 1
    const running = await serve(dir, {
      SOURCES: 'evm:ethereum',
      ETHEREUM_RPC_URL: anvil.url,
      ETHEREUM_WS_URL: anvil.url.replace('http', 'ws'),
      ETHEREUM_CONFIRMATIONS: '1',
      ETHEREUM_START_BLOCK: String(first),
      WATCHLIST_DIR: lists
    })
    const seenAt = new Map<number, number>()
    const doneAt = new Map<number, number>()
    const end = performance.now() + LIVE_S * 1000
    let sent = 0
    while (performance.now() < end) {
      const h = await head(anvil)
      const now = performance.now()
      for (let n = first; n <= h; n++) if (!seenAt.has(n)) seenAt.set(n, now)
      const done = status(running).chain.last_processed ?? 0
      for (let n = first; n <= done; n++) if (!doneAt.has(n)) doneAt.set(n, now)
      if (sent < h - first + 2) {
        void transferTx(uni, usdc, WHALE).catch(() => undefined)
        sent++
      }
      await new Promise((r) => setTimeout(r, 20))
    }
    await running.stop()
    const lags = [...doneAt].map(([n, t]) => (t - seenAt.get(n)!) / 1000).sort((a, b) => a - b)
    const q = (p: number): number =>
      Math.round((lags[Math.min(lags.length - 1, Math.floor(p * lags.length))] ?? NaN) * 1000) / 1000
    return { blocks: lags.length, lag_s_median: q(0.5), lag_s_p99: q(0.99), lag_s_max: q(1) }
  } finally {
    await anvil.stop()
  }
}

async function main(): Promise<void> {
  const [variant, dir] = process.argv.slice(2) as [string, string]
  const run = variant === 'backfill' ? backfill : variant === 'bare' ? bare : live
  process.stdout.write(JSON.stringify({ variant, ...(await run(dir)) }) + '\n')
  process.exit(0)
}
void main()
