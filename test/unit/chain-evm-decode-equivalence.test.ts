/**
 * decodeTx (ingest/normalize/chain/evm-decode.ts) against its straightforward reference
 * (test/helpers/chain/evm-decode-reference.ts: a sorted copy of every receipt's logs, decodeLog's wrapper objects):
 * for random receipts (transfers, ERC-721 and malformed logs, wraps and unwraps of the wrapped-native token and
 * of other tokens, swaps of every family, unknown topics, removed logs, logs in and out of order, ties and
 * missing log indexes, upper-case addresses, the coin value) the RawTx is deep-equal and the malformed count
 * the same; decodeLog still wraps its answer.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeLog, decodeTx, type EvmLog, type TxInput } from '../../ingest/normalize/chain/evm-decode.js'
import { DEPOSIT, SWAP_TOPICS, TRANSFER, WITHDRAWAL } from '../../ingest/normalize/chain/evm-topics.js'
import { decodeTxReference } from '../helpers/chain/evm-decode-reference.js'

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
const hex = (n: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: n, maxLength: n }).map((c) => c.join(''))
const address = fc.oneof(
  hex(40).map((h) => `0x${h}`),
  fc.constantFrom(WETH, WETH.toUpperCase().replace('0X', '0x'), '0x' + '0'.repeat(40))
)
const topicOf = fc.oneof(
  address.map((a) => `0x${'0'.repeat(24)}${a.slice(2)}`),
  hex(64).map((h) => `0x${h}`)
)
const data = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map((v) => `0x${v.toString(16).padStart(64, '0')}`),
  fc.constantFrom('0x', '0x' + '0'.repeat(256), '0x01')
)
const topic0 = fc.constantFrom(TRANSFER, DEPOSIT, WITHDRAWAL, ...Object.values(SWAP_TOPICS), '0x' + 'f'.repeat(64))
const log: fc.Arbitrary<EvmLog> = fc.record({
  address,
  topics: fc.tuple(topic0, fc.array(topicOf, { maxLength: 3 })).map(([t, rest]) => [t, ...rest]),
  data,
  logIndex: fc.option(fc.integer({ min: 0, max: 6 })),
  transactionHash: fc.constant('0x' + 'a'.repeat(64)),
  blockNumber: fc.constant(1n),
  blockHash: fc.constant('0x' + 'b'.repeat(64)),
  removed: fc.option(fc.boolean(), { nil: undefined })
})
const input: fc.Arbitrary<TxInput> = fc.record({
  chain: fc.constant('ethereum'),
  tx: fc.record({
    hash: hex(64).map((h) => `0x${h}`),
    from: address,
    to: fc.option(address),
    value: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 24n }))
  }),
  blockNumber: fc.integer({ min: 0, max: 30_000_000 }),
  blockHash: hex(64).map((h) => `0x${h}`),
  ts: fc.integer({ min: 0, max: 2 ** 42 }),
  // sorted as a receipt gives them, or shuffled
  logs: fc
    .tuple(fc.array(log, { maxLength: 8 }), fc.boolean())
    .map(([logs, sorted]) => (sorted ? [...logs].sort((a, b) => (a.logIndex ?? 0) - (b.logIndex ?? 0)) : logs))
})

describe('decodeTx', () => {
  it('gives the RawTx and malformed count of the version before', () => {
    fc.assert(
      fc.property(input, (tx) => {
        let malformed = 0
        let want = 0
        const got = decodeTx(tx, WETH, () => malformed++)
        expect(got).toEqual(decodeTxReference(tx, WETH, () => want++))
        expect(malformed).toBe(want)
      }),
      { numRuns: 1000 }
    )
  })

  it('leaves the receipt as it was, and decodeLog still wraps a leg or a swap', () => {
    const logs: EvmLog[] = [
      {
        address: '0xP00l',
        topics: [SWAP_TOPICS['uniswap_v2']!],
        data: '0x',
        logIndex: 5,
        transactionHash: null,
        blockNumber: null,
        blockHash: null
      },
      {
        address: WETH,
        topics: [DEPOSIT, '0x' + '0'.repeat(24) + 'Ab'.repeat(20)],
        data: '0x' + '1'.padStart(64, '0'),
        logIndex: 2,
        transactionHash: null,
        blockNumber: null,
        blockHash: null
      }
    ]
    const tx: TxInput = {
      chain: 'ethereum',
      tx: { hash: '0xAA', from: '0xF', to: null, value: 0n },
      blockNumber: 1,
      blockHash: '0xBB',
      ts: 0,
      logs
    }
    const got = decodeTx(tx, WETH)
    expect(logs.map((l) => l.logIndex)).toEqual([5, 2])
    expect(got.legs.map((l) => l.logIndex)).toEqual([2])
    expect(got.swaps).toEqual([{ pool: '0xp00l', logIndex: 5 }])
    expect(decodeLog(logs[0]!, WETH)).toEqual({ swap: { pool: '0xp00l', logIndex: 5 } })
    expect(decodeLog(logs[1]!, WETH)).toEqual({
      leg: {
        kind: 'deposit',
        token: 'native',
        from: '0x' + 'ab'.repeat(20),
        to: '0x' + 'ab'.repeat(20),
        amount: 1n,
        logIndex: 2
      }
    })
  })
})
