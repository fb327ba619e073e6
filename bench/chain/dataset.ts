/**
 * @module
 * A deterministic "recorded" chain dataset for the decode benchmark: transactions as a node's receipts give
 * them (logs with hex topics and data, the transaction's sender and value). Mix per 10 transactions: 7 USDC
 * transfers between whale wallets (1 log), 1 WETH transfer (1 log), 2 two-hop swaps ETH -> AAA -> BBB through
 * a router (value, Deposit, 3 Transfers, 2 Swap logs: 6 logs). Seeded (mulberry32), so every run decodes the
 * same logs; only their times move with the clock (they start at 00:00 UTC of the day before the run).
 *
 * Each transaction goes through the RPC tape's JSON (ingest/sources/chain/rpc-tape.ts: written, then read
 * back) before it is handed out, so its strings are what a JSON parser yields, as the node's answers or a
 * replayed recording give them: flat strings. Built with template literals they were cons strings, and the
 * first decode to read one flattened it, a copy that the dataset then kept: ~180 MB promoted to the old
 * generation during the timed run, a cost of this generator the source never pays.
 */
import type { TxInput, EvmLog } from '../../ingest/normalize/chain/evm-decode.js'
import { DEPOSIT, SWAP_TOPICS, TRANSFER } from '../../ingest/normalize/chain/evm-topics.js'
import { replacer, reviver } from '../../ingest/sources/chain/rpc-tape.js'
import { mulberry32 } from '../mulberry32.js'

export const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
export const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
export const AAA = '0x00000000000000000000000000000000000aaa01'
export const BBB = '0x00000000000000000000000000000000000bbb01'
const ROUTER = '0x7a250d5630b4cf539739df2c5dacb4c659f2488d'
const POOL1 = '0x0000000000000000000000000000000000009001'
const POOL2 = '0x0000000000000000000000000000000000009002'

const word = (hex: string): string => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`
const amountWord = (v: bigint): string => word(v.toString(16))

export function chainDataset(txs: number, seed = 42): { inputs: TxInput[]; logs: number } {
  const rnd = mulberry32(seed)
  const wallet = (): string =>
    `0x${Math.floor(rnd() * 2 ** 32)
      .toString(16)
      .padStart(8, '0')}${'ab'.repeat(16)}`
  const inputs: TxInput[] = []
  let logs = 0
  // yesterday, 00:00 UTC: the dataset's ~7 hours of blocks stay inside the 7-day whale window, so their events'
  // details are remembered for the read API as a recent backfill's are (chain-details.ts leaves older events
  // out), and inside one day, so never across a week's or a month's partition (schemas/001, 004, 018)
  const t0 = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000
  for (let i = 0; i < txs; i++) {
    const block = 20_000_000 + Math.floor(i / 100)
    const hash = `0x${i.toString(16).padStart(64, '0')}`
    const blockHash = `0x${block.toString(16).padStart(64, 'b')}`
    let logIndex = (i % 100) * 8
    const log = (address: string, topics: string[], data: string): EvmLog => ({
      address,
      topics,
      data,
      logIndex: logIndex++,
      transactionHash: hash,
      blockNumber: BigInt(block),
      blockHash
    })
    const from = wallet()
    const kind = i % 10
    let txLogs: EvmLog[]
    let value = 0n
    let to = USDC
    if (kind < 7) {
      const amount = BigInt(Math.floor(200_000 + rnd() * 5_000_000)) * 10n ** 6n
      txLogs = [log(USDC, [TRANSFER, word(from), word(wallet())], amountWord(amount))]
    } else if (kind === 7) {
      to = WETH
      txLogs = [
        log(WETH, [TRANSFER, word(from), word(wallet())], amountWord(BigInt(Math.floor(50 + rnd() * 500)) * 10n ** 18n))
      ]
    } else {
      value = BigInt(Math.floor(50 + rnd() * 500)) * 10n ** 18n
      to = ROUTER
      const mid = BigInt(Math.floor(rnd() * 1e6)) * 10n ** 18n
      const out = BigInt(Math.floor(rnd() * 1e6)) * 10n ** 18n
      txLogs = [
        log(WETH, [DEPOSIT, word(ROUTER)], amountWord(value)),
        log(WETH, [TRANSFER, word(ROUTER), word(POOL1)], amountWord(value)),
        log(AAA, [TRANSFER, word(POOL1), word(POOL2)], amountWord(mid)),
        log(POOL1, [SWAP_TOPICS['uniswap_v2']!, word(ROUTER), word(POOL2)], `0x${'0'.repeat(256)}`),
        log(BBB, [TRANSFER, word(POOL2), word(from)], amountWord(out)),
        log(POOL2, [SWAP_TOPICS['uniswap_v2']!, word(ROUTER), word(from)], `0x${'0'.repeat(256)}`)
      ]
    }
    logs += txLogs.length
    const input: TxInput = {
      chain: 'ethereum',
      tx: { hash, from, to, value },
      blockNumber: block,
      blockHash,
      ts: t0 + Math.floor(i / 100) * 12_000,
      logs: txLogs
    }
    inputs.push(JSON.parse(JSON.stringify(input, replacer), reviver) as TxInput)
  }
  return { inputs, logs }
}

/** tracked token contracts of the benchmark (bench/chain/rows.ts TOKENS), the wrapped native included */
const TRACKED = new Set([USDC, WETH, BBB])

export interface MixedDataset {
  /** the eth_getLogs answer over TRACKED, block by block: whale transactions' tracked logs among small transfers */
  readonly logs: EvmLog[]
  /** receipt of each whale transaction (its TxInput), by tx hash */
  readonly receipts: Map<string, TxInput>
  /** receipt logs of the whale transactions */
  readonly receiptLogs: number
}

/**
 * A realistic mix for the decode benchmark: the tracked-token logs an eth_getLogs over the same blocks would
 * answer, where `fillerPerWhale` small USDC transfers (10 to 20,000 USD, each its own transaction, below the
 * source's candidate size `WHALE_MIN_USD / 2`) come with every whale transaction of `chainDataset(whaleTxs)`.
 * The share is an assumption (1 whale-sized transaction in 20 at 19), not a measurement of any chain.
 */
export function mixedDataset(whaleTxs: number, fillerPerWhale: number, seed = 7): MixedDataset {
  const rnd = mulberry32(seed)
  const wallet = (): string =>
    `0x${Math.floor(rnd() * 2 ** 32)
      .toString(16)
      .padStart(8, '0')}${'cd'.repeat(16)}`
  const { inputs } = chainDataset(whaleTxs)
  const logs: EvmLog[] = []
  const receipts = new Map<string, TxInput>()
  let receiptLogs = 0
  let filler = 0
  for (const input of inputs) {
    receipts.set(input.tx.hash, input)
    receiptLogs += input.logs.length
    const small: EvmLog[] = []
    for (let k = 0; k < fillerPerWhale; k++) {
      const hash = `0x${(0xf0000000 + filler++).toString(16).padStart(64, '0')}`
      const amount = BigInt(Math.floor((10 + rnd() * 19_990) * 1e6))
      small.push({
        address: USDC,
        topics: [TRANSFER, word(wallet()), word(wallet())],
        data: amountWord(amount),
        logIndex: 1_000 + k,
        transactionHash: hash,
        blockNumber: BigInt(input.blockNumber),
        blockHash: input.blockHash
      })
    }
    const tracked = input.logs.filter((l) => TRACKED.has(l.address))
    // through the tape's JSON as the node's answer: flat strings (see the module's note)
    for (const l of JSON.parse(JSON.stringify([...tracked, ...small], replacer), reviver) as EvmLog[]) logs.push(l)
  }
  return { logs, receipts, receiptLogs }
}
