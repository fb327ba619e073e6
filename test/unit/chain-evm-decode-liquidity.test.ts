/**
 * Liquidity logs in the EVM decoder (ingest/normalize/chain/evm-decode.ts): a pool's Mint or Burn, V2 or V3,
 * names the pool in `liquidityPools` (once per pool), beside the transaction's legs and swaps; a transaction
 * without one has no `liquidityPools`; decodeLog (the candidate pass) gives nothing for them.
 */
import { describe, expect, it } from 'vitest'
import { decodeLog, decodeTx, type EvmLog } from '../../ingest/normalize/chain/evm-decode.js'
import { LIQUIDITY_TOPICS, SWAP_TOPICS, TRANSFER } from '../../ingest/normalize/chain/evm-topics.js'

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
const PAIR = '0x' + 'a1'.repeat(20)
const POOL_V3 = '0x' + 'b2'.repeat(20)
const ME = '0x' + '11'.repeat(20)
const topic = (address: string): string => `0x${'0'.repeat(24)}${address.slice(2)}`
const word = (n: bigint): string => `0x${n.toString(16).padStart(64, '0')}`

let index = 0
function log(address: string, topics: string[], data = word(1n)): EvmLog {
  return {
    address: address.toUpperCase().replace('0X', '0x'),
    topics,
    data,
    logIndex: index++,
    transactionHash: '0x' + 'c'.repeat(64),
    blockNumber: 16n,
    blockHash: '0x' + 'd'.repeat(64)
  }
}

function decode(logs: EvmLog[]): ReturnType<typeof decodeTx> {
  return decodeTx(
    {
      chain: 'ethereum',
      tx: { hash: '0x' + 'c'.repeat(64), from: ME, to: PAIR, value: 0n },
      blockNumber: 16,
      blockHash: '0x' + 'd'.repeat(64),
      ts: 0,
      logs
    },
    WETH
  )
}

describe('liquidity logs', () => {
  it('V2 Mint and Burn, V3 Mint and Burn name their pools, lower-case, once each', () => {
    const v2Mint = log(PAIR, [LIQUIDITY_TOPICS.v2_mint!, topic(ME)], word(1n) + word(2n).slice(2))
    const lp = log(PAIR, [TRANSFER, topic('0x' + '0'.repeat(40)), topic(ME)], word(30n))
    const v2Burn = log(PAIR, [LIQUIDITY_TOPICS.v2_burn!, topic(ME), topic(ME)])
    const v3Mint = log(POOL_V3, [LIQUIDITY_TOPICS.v3_mint!, topic(ME), word(1n), word(2n)])
    const v3Burn = log(POOL_V3, [LIQUIDITY_TOPICS.v3_burn!, topic(ME), word(1n), word(2n)])
    const tx = decode([v2Mint, lp, v2Burn, v3Mint, v3Burn])
    expect(tx.liquidityPools).toEqual([PAIR, POOL_V3])
    // the LP token's mint is a leg of the pair's own token
    expect(tx.legs.map((l) => [l.token, l.to, l.amount])).toEqual([[PAIR, ME, 30n]])
    expect(tx.swaps).toEqual([])
    for (const l of [v2Mint, v2Burn, v3Mint, v3Burn]) expect(decodeLog(l, WETH)).toBeNull()
  })

  it('a transaction without liquidity logs has no liquidityPools; a Swap stays a swap', () => {
    const tx = decode([log(PAIR, [SWAP_TOPICS.uniswap_v2!, topic(ME), topic(ME)])])
    expect(tx.liquidityPools).toBeUndefined()
    expect(tx.swaps.map((s) => s.pool)).toEqual([PAIR])
  })
})
