/**
 * The EVM source's RPC layer (ingest/sources/chain/evm-rpc.ts `ClientRpc`) reading a node's messy answers over
 * a real socket: a receipt whose log list holds a null entry, a log with a block number that is not a number and
 * a log without topics, beside a well-formed Transfer. The answer is read as sent (viem's receipt formatter threw
 * on such logs before the decoder could skip them, and the source stopped at the same range on every restart);
 * the messy logs come out `malformed` or with a null block number, the Transfer as it was sent. An eth_getLogs
 * answer that is not a list is an error naming it.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { decodeTx } from '../../ingest/normalize/chain/evm-decode.js'
import { TRANSFER } from '../../ingest/normalize/chain/evm-topics.js'
import { ClientRpc } from '../../ingest/sources/chain/evm-rpc.js'

const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const topic = (address: string): string => `0x${'0'.repeat(24)}${address.slice(2)}`
const A = '0x' + '1'.repeat(40)
const B = '0x' + '2'.repeat(40)
const TX = '0x' + 'a'.repeat(64)
const transferLog = {
  address: USDC,
  topics: [TRANSFER, topic(A), topic(B)],
  data: `0x${5_000_000_000n.toString(16).padStart(64, '0')}`,
  logIndex: '0x2',
  transactionHash: TX,
  blockNumber: '0x10',
  blockHash: '0x' + 'b'.repeat(64),
  removed: false
}

let server: http.Server
let url = ''
let clients: ChainClients

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const sent = JSON.parse(Buffer.concat(chunks).toString()) as Rpc | Rpc[]
      // the chain client batches its calls: answer a batch with a list, one answer per request
      const answers = (Array.isArray(sent) ? sent : [sent]).map(answer)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(Array.isArray(sent) ? answers : answers[0]))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  clients = ChainClients.fromEnv({ ETHEREUM_RPC_URL: url })
})

interface Rpc {
  readonly id: unknown
  readonly method: string
}

function answer(body: Rpc): unknown {
  let result: unknown = null
  if (body.method === 'eth_chainId') result = '0x1'
  else if (body.method === 'eth_getTransactionReceipt') {
    result = {
      transactionHash: TX,
      transactionIndex: '0x3',
      blockNumber: '0x10',
      status: '0x1',
      logs: [
        null,
        { ...transferLog, logIndex: '0x1', blockNumber: 'latest' },
        { ...transferLog, topics: null },
        transferLog
      ]
    }
  } else if (body.method === 'eth_getLogs') result = { not: 'a list' }
  return { jsonrpc: '2.0', id: body.id, result }
}

afterAll(async () => {
  await clients.close()
  await new Promise<void>((r) => server.close(() => r()))
})

describe('ClientRpc on messy answers', () => {
  it('reads a receipt with messy logs; the decoder counts them and keeps the Transfer', async () => {
    const rpc = new ClientRpc(clients.get('ethereum')!)
    const receipt = await rpc.receipt(TX)
    expect(receipt.transactionIndex).toBe(3)
    expect(receipt.logs).toHaveLength(4)
    expect(receipt.logs[0]!.malformed).toBe(true)
    expect(receipt.logs[1]!.blockNumber).toBeNull()
    expect(receipt.logs[2]!.malformed).toBe(true)
    expect(receipt.logs[3]).toMatchObject({ address: USDC, blockNumber: 16n, logIndex: 2 })
    let malformed = 0
    const raw = decodeTx(
      {
        chain: 'ethereum',
        tx: { hash: TX, from: A, to: USDC, value: 0n },
        blockNumber: 16,
        blockHash: '0x' + 'b'.repeat(64),
        ts: 1_790_000_000_000,
        logs: receipt.logs
      },
      '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
      () => malformed++
    )
    // the log without a block number is still a log of this receipt (the receipt names the block)
    expect(raw.legs.map((l) => [l.from, l.to, l.amount])).toEqual([
      [A, B, 5_000_000_000n],
      [A, B, 5_000_000_000n]
    ])
    expect(malformed).toBe(2)
  })

  it('rejects an eth_getLogs answer that is not a list, naming it', async () => {
    const rpc = new ClientRpc(clients.get('ethereum')!)
    await expect(rpc.logs(1, 2, [USDC], [TRANSFER])).rejects.toThrow('eth_getLogs: the answer is not a list of logs')
  })
})
