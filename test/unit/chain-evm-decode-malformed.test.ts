/**
 * Messy node answers reach the EVM decoder without crashing it (docs/sources.md, "How a chain is read"):
 * a log whose topic list, address or data is missing or of the wrong type, data that is not hex, an address topic
 * that is not zero-padded, a block number that is not a number. Each such log is counted as malformed and
 * skipped; the other logs of the same receipt still decode. Thrown instead (TypeError or SyntaxError), each would end
 * the source's run and, on every restart, stop at the same range again.
 */
import { describe, expect, it } from 'vitest'
import { decodeTx, type EvmLog } from '../../ingest/normalize/chain/evm-decode.js'
import { DEPOSIT, TRANSFER } from '../../ingest/normalize/chain/evm-topics.js'
import { candidatesOf, type CandidateContext } from '../../ingest/sources/chain/evm-fetch.js'
import { plainLog } from '../../ingest/sources/chain/evm-rpc.js'

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const A = '0x' + '1'.repeat(40)
const B = '0x' + '2'.repeat(40)
const topic = (address: string): string => `0x${'0'.repeat(24)}${address.slice(2)}`
const word = (n: bigint): string => `0x${n.toString(16).padStart(64, '0')}`

/** a node's answer for one Transfer log, as JSON-RPC gives it */
function answer(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    address: USDC,
    topics: [TRANSFER, topic(A), topic(B)],
    data: word(5_000_000_000n),
    logIndex: '0x1',
    transactionHash: '0x' + 'a'.repeat(64),
    blockNumber: '0x10',
    blockHash: '0x' + 'b'.repeat(64),
    removed: false,
    ...over
  }
}

function decode(logs: EvmLog[]): { legs: number; malformed: number } {
  let malformed = 0
  const raw = decodeTx(
    {
      chain: 'ethereum',
      tx: { hash: '0x' + 'a'.repeat(64), from: A, to: USDC, value: 0n },
      blockNumber: 16,
      blockHash: '0x' + 'b'.repeat(64),
      ts: 1_790_000_000_000,
      logs
    },
    WETH,
    () => malformed++
  )
  return { legs: raw.legs.length, malformed }
}

describe('EVM decoder on messy node answers', () => {
  const bad: Array<[string, Record<string, unknown>]> = [
    ['topics null', { topics: null }],
    ['address null', { address: null }],
    ['data null', { data: null }],
    ['data of 66 characters that is not hex', { data: '0x' + 'zz'.repeat(32) }],
    ['data of another length', { data: '0x01' }],
    ['a from topic that is not a padded address', { topics: [TRANSFER, '0x' + 'f'.repeat(64), topic(B)] }],
    ['a topic that is not a string', { topics: [TRANSFER, 7, topic(B)] }]
  ]
  for (const [name, over] of bad) {
    it(`counts a Transfer log with ${name} as malformed and decodes the receipt's other log`, () => {
      const good = plainLog(answer({ logIndex: '0x2' }))
      expect(() => decode([plainLog(answer(over)), good])).not.toThrow()
      expect(decode([plainLog(answer(over)), good])).toEqual({ legs: 1, malformed: 1 })
    })
  }

  it('decodes the well-formed answer, and checks a wrapped-native Deposit the same way', () => {
    expect(decode([plainLog(answer())])).toEqual({ legs: 1, malformed: 0 })
    const deposit = (data: unknown): EvmLog =>
      plainLog(answer({ address: WETH, topics: [DEPOSIT, topic(A)], data, logIndex: '0x3' }))
    expect(decode([deposit(word(10n ** 18n))])).toEqual({ legs: 1, malformed: 0 })
    expect(decode([deposit('0x' + 'g'.repeat(64))])).toEqual({ legs: 0, malformed: 1 })
  })

  it('reads a block number or log index that is not a number as null instead of throwing', () => {
    const log = plainLog(answer({ blockNumber: 'latest', logIndex: 'x' }))
    expect(log.blockNumber).toBeNull()
    expect(log.logIndex).toBeNull()
    expect(plainLog(answer({ blockNumber: 16, logIndex: 2n })).blockNumber).toBe(16n)
  })

  it('leaves a log without a block number out of the candidates, counted as malformed', () => {
    let malformed = 0
    // USDC priced at 1 USD by its price asset, no minimum size: every well-formed transfer is a candidate
    const ctx = {
      wrappedNative: WETH,
      minUsd: 0,
      wallets: new Set<string>(),
      pricer: { price: () => null },
      token: () => ({ symbol: 'USDC', decimals: 6, priceAsset: 'USD' })
    } as unknown as CandidateContext
    const logs = [plainLog(answer({ blockNumber: null })), plainLog(answer({ transactionHash: '0x' + 'c'.repeat(64) }))]
    const found = candidatesOf(logs, ctx, 0, () => malformed++)
    expect(malformed).toBe(1)
    expect([...found]).toEqual([['0x' + 'c'.repeat(64), 16]])
  })
})
