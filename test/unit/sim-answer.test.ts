/**
 * The eth_simulateV1 answer read from its text (engine/nodeintel/sim-answer.ts) against the same answer
 * parsed whole (`simOutcomesFromValue` of `JSON.parse`):
 * - the same outcomes for answers with logs, block headers, a failure's `error.data`, an `error` without
 *   data, escaped quotes and backslashes in skipped strings, whitespace between tokens, numbers and literals
 *   in skipped values, keys in any order;
 * - `undefined` (the whole text parsed instead) for an error answer, a null result, a call without one of
 *   the fields read, an escape in a field read, a gas that is not a quantity, text after the answer, and
 *   a text cut short.
 */
import { describe, expect, it } from 'vitest'
import { simOutcomesFromText, simOutcomesFromValue } from '../../engine/nodeintel/sim-answer.js'

const log = (data: string) => ({
  address: '0x00000000000000000000000000000000000000aa',
  topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', '0x01'],
  data,
  blockNumber: '0x27',
  transactionIndex: '0x0',
  logIndex: '0x0',
  removed: false
})
const header = {
  hash: '0xa42f',
  logsBloom: `0x${'0'.repeat(512)}`,
  number: '0x26',
  gasUsed: '0x31a9b',
  uncles: [],
  transactions: ['0x7fb2'],
  size: 1234,
  nested: { deep: [[{ x: null }], { y: true }] }
}
const answer = {
  jsonrpc: '2.0',
  id: 1,
  result: [
    {
      ...header,
      calls: [
        {
          returnData: '0x0000000000000000000000000000000000000000000000000000000000000001',
          logs: [log('0x')],
          gasUsed: '0x5208',
          status: '0x1'
        },
        {
          status: '0x0',
          gasUsed: '0x6a4',
          returnData: '0x',
          logs: [],
          error: { code: 3, message: 'execution reverted: "no" \\ here', data: '0x08c379a0' }
        }
      ]
    },
    { ...header, calls: [] },
    {
      calls: [
        {
          returnData: '0x',
          logs: [log('0x1234'), log('0x')],
          gasUsed: '0x1',
          status: '0x0',
          error: { message: 'out of gas' }
        },
        { returnData: '0xabcd', logs: null, gasUsed: '0x0', status: '0x1', error: { data: null } }
      ],
      ...header
    }
  ]
}

const outcomes = (text: string) => simOutcomesFromText(text)?.blocks
const parsed = (text: string) => simOutcomesFromValue((JSON.parse(text) as { result: unknown }).result)

describe('simOutcomesFromText', () => {
  it('reads the same outcomes as the whole parse', () => {
    for (const text of [JSON.stringify(answer), JSON.stringify(answer, null, 2), JSON.stringify(answer, null, '\t')]) {
      const got = outcomes(text)
      expect(got).toEqual(parsed(text))
      expect(got?.map((b) => b.length)).toEqual([2, 0, 2])
    }
    expect(outcomes(JSON.stringify(answer))?.[0]).toEqual([
      { status: 'success', data: `0x${'0'.repeat(63)}1`, gasUsed: 21000n },
      { status: 'failure', data: '0x08c379a0', gasUsed: 1700n }
    ])
    expect(outcomes(JSON.stringify(answer))?.[2]?.map((o) => o.data)).toEqual(['0x', '0xabcd'])
  })

  it('reads an empty result and an answer whose result comes first', () => {
    expect(outcomes('{"jsonrpc":"2.0","id":1,"result":[]}')).toEqual([])
    expect(outcomes('{"result":[{"calls":[{"status":"0x1","returnData":"0x","gasUsed":"0x2"}]}],"id":"x"}')).toEqual([
      [{ status: 'success', data: '0x', gasUsed: 2n }]
    ])
  })

  it('gives undefined for what it does not read, so the whole text is parsed', () => {
    const call = (fields: string) => `{"jsonrpc":"2.0","id":1,"result":[{"calls":[{${fields}}]}]}`
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method eth_simulateV1 does not exist"}}',
      '{"jsonrpc":"2.0","id":1,"result":null}',
      '{"jsonrpc":"2.0","id":1}',
      call('"returnData":"0x","gasUsed":"0x1"'),
      call('"status":"0x1","returnData":"0x\\u0031","gasUsed":"0x1"'),
      call('"status":"0x1","returnData":"0x","gasUsed":"not a quantity"'),
      call('"status":1,"returnData":"0x","gasUsed":"0x1"'),
      `${JSON.stringify(answer)} x`,
      JSON.stringify(answer).slice(0, 900),
      ''
    ])
      expect(simOutcomesFromText(text)).toBeUndefined()
  })
})
