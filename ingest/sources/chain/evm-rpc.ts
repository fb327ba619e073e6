/**
 * @module
 * The JSON-RPC calls the EVM whale source makes, behind one small interface so they can be recorded and
 * replayed (rpc-tape.ts): `ClientRpc` asks the node through the shared ChainClient (viem: typed RPC, rate
 * limit, failover), `RecordingRpc` records what another one answers, `ReplayRpc` answers from a recording.
 * Answers are plain data (numbers, strings, bigint amounts), the same whichever implementation gave them.
 */
import type { Hex } from 'viem'
import type { ChainClient } from '../../../engine/chain/chain-client.js'
import type { EvmLog, EvmTx } from '../../normalize/chain/evm-decode.js'
import { TapePlayer, TapeRecorder } from './rpc-tape.js'

export interface RpcBlock {
  readonly number: number
  readonly hash: string
  readonly parentHash: string
  /** epoch seconds */
  readonly timestamp: number
  /** only when asked for with transactions */
  readonly transactions: readonly EvmTx[]
}

export interface RpcReceipt {
  readonly transactionIndex: number
  readonly logs: readonly EvmLog[]
}

export interface EvmRpc {
  /** throws when the node is on another chain (or unreachable) */
  verifyChain(): Promise<void>
  blockNumber(): Promise<number>
  block(n: number, withTransactions: boolean): Promise<RpcBlock>
  logs(from: number, to: number, addresses: readonly string[], topics: readonly string[]): Promise<EvmLog[]>
  receipt(hash: string): Promise<RpcReceipt>
  transaction(hash: string): Promise<EvmTx>
  /** JSON-RPC calls made */
  readonly calls: number
}

const hex = (n: number): Hex => `0x${n.toString(16)}`

/** a block number or log index as a node may send it (hex or decimal text, number, bigint), null when not one */
function bigIntOrNull(v: unknown): bigint | null {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : null
  if (typeof v !== 'string' || v === '') return null
  try {
    return BigInt(v)
  } catch {
    return null // text that is not a number
  }
}

/**
 * One log of a node's answer as the decoder reads it. Never throws on a messy answer: an entry that is not a log,
 * or a log without a topic list, an address or data of the right type comes out `malformed` (counted and skipped
 * by the decoder); a block number or log index that is not a number comes out null.
 */
export function plainLog(answer: unknown): EvmLog {
  const l = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>
  const { topics, address, data, transactionHash, blockHash } = l
  const malformed = !Array.isArray(topics) || typeof address !== 'string' || typeof data !== 'string'
  const logIndex = bigIntOrNull(l['logIndex'])
  return {
    address: typeof address === 'string' ? address : '',
    topics: Array.isArray(topics) ? [...(topics as string[])] : [],
    data: typeof data === 'string' ? data : '',
    logIndex: logIndex === null ? null : Number(logIndex),
    transactionHash: typeof transactionHash === 'string' ? transactionHash : null,
    blockNumber: bigIntOrNull(l['blockNumber']),
    blockHash: typeof blockHash === 'string' ? blockHash : null,
    removed: l['removed'] === true,
    ...(malformed ? { malformed } : {})
  }
}

export class ClientRpc implements EvmRpc {
  calls = 0

  constructor(private readonly client: ChainClient) {}

  verifyChain(): Promise<void> {
    this.calls += 1
    return this.client.verifyChainId()
  }

  async blockNumber(): Promise<number> {
    this.calls += 1
    // cacheTime 0: viem otherwise answers from a 4 s cache (the client's polling interval), a head 4 s stale
    return Number(await this.client.request('eth_blockNumber', (c) => c.getBlockNumber({ cacheTime: 0 })))
  }

  async block(n: number, withTransactions: boolean): Promise<RpcBlock> {
    this.calls += 1
    const b = await this.client.request('eth_getBlockByNumber', (c) =>
      c.getBlock({ blockNumber: BigInt(n), includeTransactions: withTransactions })
    )
    return {
      number: n,
      hash: b.hash!.toLowerCase(),
      parentHash: b.parentHash.toLowerCase(),
      timestamp: Number(b.timestamp),
      transactions: withTransactions
        ? (b.transactions as ReadonlyArray<{ hash: string; from: string; to: string | null; value: bigint }>).map(
            (t) => ({
              hash: t.hash.toLowerCase(),
              from: t.from.toLowerCase(),
              to: t.to?.toLowerCase() ?? null,
              value: t.value
            })
          )
        : []
    }
  }

  async logs(from: number, to: number, addresses: readonly string[], topics: readonly string[]): Promise<EvmLog[]> {
    this.calls += 1
    const found = await this.client.request('eth_getLogs', (c) =>
      c.request({
        method: 'eth_getLogs',
        params: [{ fromBlock: hex(from), toBlock: hex(to), address: addresses as Hex[], topics: [topics as Hex[]] }]
      })
    )
    if (!Array.isArray(found)) throw new Error('eth_getLogs: the answer is not a list of logs')
    return found.map(plainLog)
  }

  async receipt(hash: string): Promise<RpcReceipt> {
    this.calls += 1
    // the node's answer as sent (viem's formatter would throw on a messy log before plainLog could skip it)
    const r = (await this.client.request('eth_getTransactionReceipt', (c) =>
      c.request({ method: 'eth_getTransactionReceipt', params: [hash as Hex] })
    )) as { transactionIndex?: unknown; logs?: unknown } | null
    if (r === null || typeof r !== 'object') throw new Error(`eth_getTransactionReceipt: no receipt for ${hash}`)
    const index = bigIntOrNull(r.transactionIndex)
    return {
      transactionIndex: index === null ? 0 : Number(index),
      logs: Array.isArray(r.logs) ? r.logs.map(plainLog) : []
    }
  }

  async transaction(hash: string): Promise<EvmTx> {
    this.calls += 1
    const t = await this.client.request('eth_getTransactionByHash', (c) => c.getTransaction({ hash: hash as Hex }))
    return { hash: t.hash.toLowerCase(), from: t.from.toLowerCase(), to: t.to?.toLowerCase() ?? null, value: t.value }
  }
}

/** Records every answer of `inner` (errors are not recorded: a replay of them fails as missing). */
export class RecordingRpc implements EvmRpc {
  constructor(
    private readonly inner: EvmRpc,
    private readonly tape: TapeRecorder
  ) {}

  get calls(): number {
    return this.inner.calls
  }

  /** records the answer, or the failure (a refused span replays as the same refusal: the span halves again) */
  private async rec<T>(method: string, params: unknown[], p: Promise<T>): Promise<T> {
    let result: T
    try {
      result = await p
    } catch (err) {
      this.tape.recordError(method, params, err)
      throw err
    }
    this.tape.record(method, params, result ?? null)
    return result
  }

  verifyChain(): Promise<void> {
    return this.rec('verifyChain', [], this.inner.verifyChain())
  }
  blockNumber(): Promise<number> {
    return this.rec('blockNumber', [], this.inner.blockNumber())
  }
  block(n: number, withTransactions: boolean): Promise<RpcBlock> {
    return this.rec('block', [n, withTransactions], this.inner.block(n, withTransactions))
  }
  logs(from: number, to: number, addresses: readonly string[], topics: readonly string[]): Promise<EvmLog[]> {
    return this.rec('logs', [from, to, addresses, topics], this.inner.logs(from, to, addresses, topics))
  }
  receipt(hash: string): Promise<RpcReceipt> {
    return this.rec('receipt', [hash], this.inner.receipt(hash))
  }
  transaction(hash: string): Promise<EvmTx> {
    return this.rec('transaction', [hash], this.inner.transaction(hash))
  }
}

/** Answers from a recording; no node involved. */
export class ReplayRpc implements EvmRpc {
  calls = 0

  constructor(private readonly tape: TapePlayer) {}

  private play<T>(method: string, params: unknown[]): Promise<T> {
    this.calls += 1
    try {
      return Promise.resolve(this.tape.answer<T>(method, params))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  async verifyChain(): Promise<void> {
    await this.play('verifyChain', [])
  }
  blockNumber(): Promise<number> {
    return this.play('blockNumber', [])
  }
  block(n: number, withTransactions: boolean): Promise<RpcBlock> {
    return this.play('block', [n, withTransactions])
  }
  logs(from: number, to: number, addresses: readonly string[], topics: readonly string[]): Promise<EvmLog[]> {
    return this.play('logs', [from, to, addresses, topics])
  }
  receipt(hash: string): Promise<RpcReceipt> {
    return this.play('receipt', [hash])
  }
  transaction(hash: string): Promise<EvmTx> {
    return this.play('transaction', [hash])
  }
}
