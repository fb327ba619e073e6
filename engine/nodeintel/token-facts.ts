/**
 * @module
 * What the node can tell about a token besides the simulation, in two JSON-RPC batches: metadata (name,
 * symbol, decimals, total supply), the owner (`owner()`, else `getOwner()`), EIP-1967 implementation and
 * beacon slots, the code (and the implementation's code) scanned for risky functions and opcodes; then,
 * with the pair, how much of the LP supply is burned and how much of the token supply the owner holds. The
 * contract's creation block comes from a search over historical `eth_getCode` (archive state; engine/nodeintel/contract-age.ts).
 */
import { erc20Abi, getAddress, parseAbi, type Address, type Hex, type PublicClient } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'
import { isTransportError } from '../chain/rpc-errors.js'
import { EIP1967_BEACON_SLOT, EIP1967_IMPLEMENTATION_SLOT, scanCode, slotAddress, type CodeScan } from './bytecode.js'

export const OWNER_ABI = parseAbi([
  'function owner() view returns (address)',
  'function getOwner() view returns (address)'
])
/** Uniswap V2 pairs mint this much LP to address(0) on the first deposit, whoever provides the liquidity */
const MINIMUM_LIQUIDITY = 1000n
export const DEAD: Address = '0x000000000000000000000000000000000000dEaD'
const ZERO: Address = '0x0000000000000000000000000000000000000000'

export interface TokenMetadata {
  readonly name: string | null
  readonly symbol: string | null
  readonly decimals: number | null
  /** smallest units, decimal string */
  readonly total_supply: string | null
  /** owner() / getOwner(); null when the token has neither */
  readonly owner: Address | null
  /** true when the owner is the zero or dead address; null when the token has no owner function */
  readonly owner_renounced: boolean | null
}

export interface TokenFacts {
  readonly metadata: TokenMetadata
  readonly code: CodeScan
  /** the proxy's implementation (EIP-1967 slot, beacon, or EIP-1167 target), when the token is a proxy */
  readonly implementation: Address | null
  readonly proxyKind: 'eip1967' | 'beacon' | 'eip1167' | null
  /** the implementation's code scanned (null: not a proxy) */
  readonly implementationCode: CodeScan | null
}

export interface PairFacts {
  /** share of the LP supply held by address(0) (beyond the minimum liquidity) and 0x…dEaD, percent */
  readonly lpBurnedPct: number | null
  /** share of the LP supply held by the configured lockers, percent (null: none configured, or no pair) */
  readonly lpLockedPct: number | null
  /** share of the token supply the owner holds, percent */
  readonly ownerPct: number | null
  /** share of the token supply in the pair, percent */
  readonly pairPct: number | null
}

const soft = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((err: unknown) => {
    if (isTransportError(err)) throw err
    return null
  })

export async function tokenFacts(client: ChainClient, token: Address, code?: Hex): Promise<TokenFacts> {
  const first = await client.request('token_facts', (c: PublicClient) =>
    Promise.all([
      code === undefined ? c.getCode({ address: token }) : Promise.resolve(code),
      soft(c.readContract({ address: token, abi: erc20Abi, functionName: 'name' })),
      soft(c.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' })),
      soft(c.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })),
      soft(c.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply' })),
      soft(c.readContract({ address: token, abi: OWNER_ABI, functionName: 'owner' })),
      soft(c.readContract({ address: token, abi: OWNER_ABI, functionName: 'getOwner' })),
      soft(c.getStorageAt({ address: token, slot: EIP1967_IMPLEMENTATION_SLOT })),
      soft(c.getStorageAt({ address: token, slot: EIP1967_BEACON_SLOT }))
    ])
  )
  const [runtime, name, symbol, decimals, supply, owner1, owner2, implSlot, beaconSlot] = first
  const scan = scanCode(runtime)
  let implementation: Address | null = null
  let proxyKind: TokenFacts['proxyKind'] = null
  const impl = slotAddress(implSlot ?? undefined)
  const beacon = slotAddress(beaconSlot ?? undefined)
  if (impl) [implementation, proxyKind] = [getAddress(impl), 'eip1967']
  else if (scan.minimalProxyTo) [implementation, proxyKind] = [getAddress(scan.minimalProxyTo), 'eip1167']
  else if (beacon) {
    const beaconImpl = await client.request('beacon_implementation', (c) =>
      soft(
        c.readContract({
          address: getAddress(beacon),
          abi: parseAbi(['function implementation() view returns (address)']),
          functionName: 'implementation'
        })
      )
    )
    proxyKind = 'beacon'
    implementation = beaconImpl ? getAddress(beaconImpl) : null
  }
  let implementationCode: CodeScan | null = null
  if (implementation) {
    const implAddress = implementation
    implementationCode = scanCode(
      await client.request('implementation_code', (c) => c.getCode({ address: implAddress }))
    )
  }
  const owner = owner1 ?? owner2
  return {
    metadata: {
      name: typeof name === 'string' ? name.slice(0, 100) : null,
      symbol: typeof symbol === 'string' ? symbol.slice(0, 32) : null,
      decimals: decimals ?? null,
      total_supply: supply === null ? null : supply.toString(),
      owner: owner ? getAddress(owner) : null,
      owner_renounced: owner ? owner === ZERO || getAddress(owner) === DEAD : null
    },
    code: scan,
    implementation,
    proxyKind,
    implementationCode
  }
}

const pct = (part: bigint, whole: bigint): number => (whole > 0n ? Number((part * 1_000_000n) / whole) / 10_000 : 0)

export async function pairFacts(
  client: ChainClient,
  token: Address,
  pair: Address | null,
  owner: Address | null,
  totalSupply: string | null,
  lockers: readonly Address[] = []
): Promise<PairFacts> {
  const supply = totalSupply === null ? null : BigInt(totalSupply)
  const ownerLive = owner !== null && owner !== ZERO && owner !== DEAD
  const [lpSupply, lpZero, lpDead, ownerBal, pairBal, ...locked] = await client.request('pair_facts', (c) => {
    const balance = (of: Address, who: Address) =>
      soft(c.readContract({ address: of, abi: erc20Abi, functionName: 'balanceOf', args: [who] }))
    return Promise.all([
      pair ? soft(c.readContract({ address: pair, abi: erc20Abi, functionName: 'totalSupply' })) : null,
      pair ? balance(pair, ZERO) : null,
      pair ? balance(pair, DEAD) : null,
      ownerLive ? balance(token, owner) : null,
      pair ? balance(token, pair) : null,
      ...lockers.map((l) => (pair ? balance(pair, l) : null))
    ])
  })
  const burned = (lpZero !== null && lpZero > MINIMUM_LIQUIDITY ? lpZero - MINIMUM_LIQUIDITY : 0n) + (lpDead ?? 0n)
  const lpCounted = lpSupply !== null && lpSupply > MINIMUM_LIQUIDITY ? lpSupply - MINIMUM_LIQUIDITY : null
  const lockedSum = locked.reduce<bigint>((sum, b) => sum + (b ?? 0n), 0n)
  return {
    lpBurnedPct: lpCounted === null ? null : pct(burned, lpCounted),
    lpLockedPct: lpCounted === null || lockers.length === 0 ? null : pct(lockedSum, lpCounted),
    ownerPct: supply === null || ownerBal === null ? null : pct(ownerBal, supply),
    pairPct: supply === null || pairBal === null ? null : pct(pairBal, supply)
  }
}
