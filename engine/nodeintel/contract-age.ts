/**
 * @module
 * The block a contract was created in, found by searching `eth_getCode` over history: each round asks for
 * the code at 16 evenly spaced blocks in one JSON-RPC batch (one rate-limit token) and narrows to the gap
 * where it first appears; ~7 rounds cover a 100-million-block chain. Needs a node that keeps historical
 * state (archive); a node that does not answers the old blocks with an error, and the age is unknown. A
 * contract created and later self-destructed and re-created is found at its latest creation window.
 */
import type { Address } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'

const POINTS = 16
const MAX_ROUNDS = 10

export interface ContractAge {
  readonly block: number
  /** the creation block's timestamp, epoch ms */
  readonly timestampMs: number
}

/** null when the node cannot tell (no historical state) */
export async function contractAge(client: ChainClient, token: Address, head: bigint): Promise<ContractAge | null> {
  let lo = 0n // highest block known without code (or before genesis)
  let hi = head // lowest block known with code
  try {
    for (let round = 0; round < MAX_ROUNDS && hi - lo > 1n; round++) {
      const span = hi - lo
      const points: bigint[] = []
      for (let i = 1; i <= POINTS; i++) {
        const b = lo + (span * BigInt(i)) / BigInt(POINTS + 1)
        if (b > lo && b < hi && !points.includes(b)) points.push(b)
      }
      if (points.length === 0) break
      const codes = await client.request('contract_age', (c) =>
        Promise.all(points.map((blockNumber) => c.getCode({ address: token, blockNumber })))
      )
      for (let i = 0; i < points.length; i++) {
        const has = codes[i] !== undefined && codes[i] !== '0x'
        if (has) {
          hi = points[i]!
          break
        }
        lo = points[i]!
      }
    }
    const block = await client.request('contract_age_block', (c) => c.getBlock({ blockNumber: hi }))
    return { block: Number(hi), timestampMs: Number(block.timestamp) * 1000 }
  } catch (err) {
    if ((err as { code?: string }).code === 'chain_unavailable') throw err
    return null
  }
}
