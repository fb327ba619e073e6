/**
 * The eth_getLogs span (ingest/sources/chain/range-chunker.ts): halves on a provider's size errors down to
 * one block, grows back after clean spans, covers every block exactly once, rethrows other errors.
 */
import { describe, expect, it } from 'vitest'
import { GROW_AFTER, isRangeError, RangeChunker } from '../../ingest/sources/chain/range-chunker.js'

describe('range chunker', () => {
  it('recognises providers’ size errors, nested causes included', () => {
    for (const m of [
      'query returned more than 10000 results',
      'block range is too wide',
      'eth_getLogs is limited to a 1000 block range',
      'Log response size exceeded',
      'query exceeds max block range 2'
    ]) {
      expect(isRangeError(new Error(m))).toBe(true)
    }
    expect(isRangeError({ message: 'x', cause: { code: -32005, message: 'limit' } })).toBe(true)
    expect(isRangeError(new Error('connection refused'))).toBe(false)
  })

  it('halves a span the node did not answer in time, but not on a rate limit', () => {
    // the chain client's own timeout, wrapped as the source sees it, and viem's
    const wrapped = new Error('the ethereum node (http://127.0.0.1:8545) did not answer eth_getLogs within 5000 ms', {
      cause: new Error('no answer within 5000 ms')
    })
    expect(isRangeError(wrapped)).toBe(true)
    expect(isRangeError(new Error('The request took too long to respond.'))).toBe(true)
    // the same wrapper around a refused connection is not a size problem
    expect(isRangeError(new Error('the ethereum node did not answer eth_getLogs within 5000 ms: fetch failed'))).toBe(
      false
    )
    expect(isRangeError(new Error('HTTP request failed. Status: 429 Too Many Requests'))).toBe(false)
    expect(isRangeError({ message: 'x', cause: { message: 'rate limit exceeded' } })).toBe(false)
    expect(isRangeError({ message: 'HTTP request failed.', status: 429 })).toBe(false)
  })

  it('reads a size error as one whatever digits the quoted request holds', () => {
    // viem quotes the request body in its message: a block number or id with the digits 429 is no rate limit
    const body = 'Request body: {"id":1429,"method":"eth_getLogs","params":[{"fromBlock":"0x3429000"}]}'
    expect(isRangeError(new Error(`Log response size exceeded. ${body}`))).toBe(true)
    expect(isRangeError({ message: `query returned more than 10000 results ${body}`, code: -32005 })).toBe(true)
  })

  it('halves until the node accepts, grows back, and covers every block once', async () => {
    const chunker = new RangeChunker(64)
    const seen: Array<[number, number]> = []
    const fetch = async (a: number, b: number): Promise<number> => {
      if (b - a + 1 > 5) throw new Error('query exceeds max block range 5')
      return b - a + 1
    }
    let blocks = 0
    await chunker.run(100, 299, fetch, (n, a, b) => {
      blocks += n
      seen.push([a, b])
    })
    expect(blocks).toBe(200)
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBe(seen[i - 1]![1] + 1)
    expect(seen[0]![0]).toBe(100)
    expect(seen.at(-1)![1]).toBe(299)
    expect(chunker.halvings).toBeGreaterThan(0)
    expect(chunker.span).toBeLessThanOrEqual(8) // 4 at most after a halving, 8 after GROW_AFTER clean spans
  })

  it('grows back to its maximum after GROW_AFTER clean spans once the size error is gone', async () => {
    const chunker = new RangeChunker(64)
    let calls = 0
    const spans: number[] = []
    await chunker.run(
      1,
      1_000,
      async (a, b) => {
        if (calls++ === 0) throw new Error('query returned more than 10000 results')
        return b - a + 1
      },
      (n) => {
        spans.push(n)
      }
    )
    expect(chunker.halvings).toBe(1)
    expect(spans.slice(0, GROW_AFTER)).toEqual(Array(GROW_AFTER).fill(32))
    expect(spans[GROW_AFTER]).toBe(64)
    expect(chunker.span).toBe(64)
  })

  it('rethrows errors that are not about size, and a size error at one block', async () => {
    const chunker = new RangeChunker(8)
    await expect(
      chunker.run(
        1,
        10,
        () => Promise.reject(new Error('connection refused')),
        () => undefined
      )
    ).rejects.toThrow('connection refused')
    const one = new RangeChunker(8)
    await expect(
      one.run(
        1,
        10,
        () => Promise.reject(new Error('too many results')),
        () => undefined
      )
    ).rejects.toThrow('too many results')
    expect(one.span).toBe(1)
  })
})
