/**
 * @module
 * A node-intelligence chain without a node: the variable that would configure it, and the 503
 * `chain_not_configured` its routes answer. Light (no chain client code): the routes of a server with no
 * node-intelligence chain answer it without loading viem (engine/nodeintel/lookup.ts).
 */
import { envPrefixesOf, nodeIntelChain, type NodeIntelChain } from '../chain/chains.js'
import { ApiError } from '../errors.js'

/**
 * The variable that configures a node-intelligence chain's node (for messages): the one named like its path
 * first (`AVAX_RPC_URL`), then the chain's other prefixes (`(or AVALANCHE_RPC_URL)`).
 */
export function urlVariableOf(chain: NodeIntelChain): string {
  const own = chain.toUpperCase()
  const prefixes = envPrefixesOf(nodeIntelChain(chain))
  const others = prefixes.filter((p) => p !== own).map((p) => `${p}_RPC_URL`)
  const first = prefixes.includes(own) ? `${own}_RPC_URL` : others.shift()!
  return others.length === 0 ? first : `${first} (or ${others.join(', ')})`
}

/** 503 chain_not_configured naming the variable to set. */
export function chainNotConfigured(chain: NodeIntelChain): ApiError {
  return new ApiError(
    'chain_not_configured',
    `node intelligence for ${chain} is off: set ${urlVariableOf(chain)} to the ${chain} node's JSON-RPC URL`,
    { details: { chain } }
  )
}
