/**
 * @module
 * REFERENCE COPY (test only) of ingest/normalize/chain/evm-decode.ts's decodeLog and decodeTx in their
 * straightforward form (commit 808f470: a sorted copy of the logs, decodeLog's wrapper objects, empty lists pushed
 * to), for test/unit/chain-evm-decode-equivalence.test.ts. The rule for malformed logs is the same in both
 * (`wellFormed`: data one hex word, address topics zero-padded; test/unit/chain-evm-decode-malformed.test.ts
 * tests that rule itself), so the comparison is about the layout alone.
 */
import type { Decoded, EvmLog, TxInput } from '../../../ingest/normalize/chain/evm-decode.js'
import { DEPOSIT, isSwapTopic, TRANSFER, WITHDRAWAL } from '../../../ingest/normalize/chain/evm-topics.js'
import { NATIVE, type RawLeg, type RawSwap, type RawTx } from '../../../engine/whales/tx-legs.js'

/** the address held in a 32-byte topic (its last 20 bytes), lower-case */
function topicAddress(topic: string): string {
  return `0x${topic.slice(26).toLowerCase()}`
}

/** the malformed-log rule: data is one 32-byte hex word, and each address topic is an address padded with zeros */
function wellFormed(data: string, addressTopics: readonly string[]): boolean {
  return /^0x[0-9a-fA-F]{64}$/.test(data) && addressTopics.every((t) => /^0x0{24}[0-9a-fA-F]{40}$/.test(t))
}

/** One log → a leg, a swap, or null (not ours or malformed: `malformed` says which). */
function decodeLogReference(log: EvmLog, wrappedNative: string, onMalformed?: () => void): Decoded {
  const topic0 = log.topics[0]
  const logIndex = log.logIndex ?? 0
  const emitter = log.address.toLowerCase()
  if (topic0 === TRANSFER) {
    if (log.topics.length !== 3) return null // ERC-721 (4 topics) or a non-standard token
    if (!wellFormed(log.data, log.topics.slice(1))) {
      onMalformed?.()
      return null
    }
    return {
      leg: {
        kind: 'transfer',
        token: emitter === wrappedNative ? NATIVE : emitter,
        from: topicAddress(log.topics[1]!),
        to: topicAddress(log.topics[2]!),
        amount: BigInt(log.data),
        logIndex
      }
    }
  }
  if ((topic0 === DEPOSIT || topic0 === WITHDRAWAL) && emitter === wrappedNative) {
    if (log.topics.length !== 2 || !wellFormed(log.data, log.topics.slice(1))) {
      onMalformed?.()
      return null
    }
    const holder = topicAddress(log.topics[1]!)
    return {
      leg: {
        kind: topic0 === DEPOSIT ? 'deposit' : 'withdrawal',
        token: NATIVE,
        from: holder,
        to: holder,
        amount: BigInt(log.data),
        logIndex
      }
    }
  }
  if (isSwapTopic(topic0)) return { swap: { pool: emitter, logIndex } }
  return null
}

export function decodeTxReference(input: TxInput, wrappedNative: string, onMalformed?: () => void): RawTx {
  const legs: RawLeg[] = []
  const swaps: RawSwap[] = []
  const sender = input.tx.from.toLowerCase()
  if (input.tx.value > 0n && input.tx.to !== null) {
    legs.push({
      kind: 'value',
      token: NATIVE,
      from: sender,
      to: input.tx.to.toLowerCase(),
      amount: input.tx.value,
      logIndex: -1
    })
  }
  const logs = [...input.logs].sort((a, b) => (a.logIndex ?? 0) - (b.logIndex ?? 0))
  for (const log of logs) {
    if (log.removed) continue
    const d = decodeLogReference(log, wrappedNative, onMalformed)
    if (d === null) continue
    if ('leg' in d) legs.push(d.leg)
    else swaps.push(d.swap)
  }
  return {
    chain: input.chain,
    txHash: input.tx.hash.toLowerCase(),
    blockNumber: input.blockNumber,
    blockHash: input.blockHash.toLowerCase(),
    ts: input.ts,
    sender,
    wrappedNative,
    legs,
    swaps
  }
}
