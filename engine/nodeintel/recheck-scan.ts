/**
 * @module
 * Finds re-check triggers in a block range: logs of the watched tokens with a trigger topic
 * (recheck-topics.ts; one eth_getLogs per ADDRESS_CHUNK tokens) and transactions sent to a watched token
 * by its owner (each block with its transactions, in one JSON-RPC batch). A reverted transaction still
 * counts: the re-check it causes finds nothing changed and records nothing.
 */
import { getAddress, toHex, type Address, type Hex, type PublicClient } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'
import { TRIGGER_TOPICS, triggerOfTopic } from './recheck-topics.js'
import type { RecheckTrigger } from './verdict-change.js'

/** addresses per eth_getLogs (providers cap the address list; geth has no cap, public BSC nodes do) */
const ADDRESS_CHUNK = 500

const TOPICS: Hex[] = TRIGGER_TOPICS.map((t) => t.topic0)

export interface FoundTrigger {
  readonly token: Address
  readonly trigger: RecheckTrigger
}

interface RawLog {
  address: string
  topics: string[]
  transactionHash: Hex | null
  blockNumber: Hex | null
  removed?: boolean
}

/**
 * Triggers in blocks [from, to]. `tokens` are the watched tokens; `owners` maps a token to its owner as
 * last read (tokens without an owner function are absent: only their logs trigger).
 */
export async function scanTriggers(
  client: ChainClient,
  tokens: readonly Address[],
  owners: ReadonlyMap<Address, Address>,
  from: bigint,
  to: bigint
): Promise<FoundTrigger[]> {
  const found: FoundTrigger[] = []
  const chunks: Address[][] = []
  for (let i = 0; i < tokens.length; i += ADDRESS_CHUNK) chunks.push(tokens.slice(i, i + ADDRESS_CHUNK))
  const blockNumbers: bigint[] = []
  for (let n = from; n <= to; n++) blockNumbers.push(n)
  const [logs, blocks] = await Promise.all([
    client.request('recheck_logs', (c: PublicClient) =>
      Promise.all(
        chunks.map(
          (address) =>
            c.request({
              method: 'eth_getLogs',
              params: [{ address, topics: [TOPICS], fromBlock: toHex(from), toBlock: toHex(to) }]
            }) as Promise<RawLog[]>
        )
      )
    ),
    owners.size === 0
      ? Promise.resolve([])
      : client.request('recheck_blocks', (c: PublicClient) =>
          Promise.all(blockNumbers.map((blockNumber) => c.getBlock({ blockNumber, includeTransactions: true })))
        )
  ])
  for (const log of logs.flat()) {
    const t = triggerOfTopic(log.topics[0])
    if (!t || log.removed) continue
    found.push({
      token: getAddress(log.address),
      trigger: {
        kind: 'log',
        tx_hash: log.transactionHash,
        block_number: log.blockNumber === null ? null : Number(log.blockNumber),
        detail: t.signature,
        from: null
      }
    })
  }
  for (const b of blocks) {
    for (const tx of b.transactions) {
      if (!tx.to) continue
      const token = getAddress(tx.to)
      const owner = owners.get(token)
      if (owner === undefined || getAddress(tx.from) !== owner) continue
      found.push({
        token,
        trigger: {
          kind: 'owner_tx',
          tx_hash: tx.hash,
          block_number: Number(b.number),
          detail: tx.input.length >= 10 ? tx.input.slice(0, 10) : null,
          from: owner
        }
      })
    }
  }
  return found
}
