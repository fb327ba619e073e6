/**
 * @module
 * Node health for GET /v1/node/health: each configured node of each node-intelligence chain checked on
 * its own (no failover): chain id, head block and its age, syncing, peers (optional: anvil and some
 * providers do not answer net_peerCount), client version, latency (median of 3 eth_blockNumber), whether
 * it honours eth_call state overrides, runs eth_simulateV1 and debug tracing, and Avalanche's `/ext/health` where the URL is
 * an avalanchego C-Chain endpoint. Each chain also says whether its honeypot checks run as a wallet
 * (`simulate_v1`: the cached answer the checks use, asked now when not known). A chain is `ok` when a node on the right chain answers with a fresh
 * head, `degraded` when one answers but its head is stale or it is syncing, `down` when none answers,
 * `chain_mismatch` when the answering nodes are on another chain.
 */
import type { RecheckStats } from './recheck.js'
import type { PublicClient } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'
import type { ChainClientStats } from '../chain/chain-client-types.js'
import { errorText, isTransportError } from '../chain/rpc-errors.js'
import { EVM_CHAINS, NODE_INTEL_CHAINS, nodeIntelChain, type NodeIntelChain } from '../chain/chains.js'
import { supportsSimulateV1, supportsStateOverride } from './probe.js'
import { urlVariableOf } from './chain-off.js'
import type { NodeIntelLookup } from './lookup.js'

/** A head older than this (and older than 30 blocks of the chain) is stale, seconds. */
export const HEAD_MAX_AGE_S = 60
/** `/ext/health` is given this long, ms */
const EXT_HEALTH_TIMEOUT_MS = 2_000

export type ChainStatus = 'ok' | 'degraded' | 'down' | 'chain_mismatch' | 'not_configured'

export interface NodeHealth {
  readonly url: string
  readonly reachable: boolean
  readonly chain_id: number | null
  readonly chain_id_ok: boolean | null
  readonly head_block: number | null
  readonly head_age_s: number | null
  readonly syncing: boolean | null
  readonly peers: number | null
  readonly client_version: string | null
  readonly latency_ms: number | null
  readonly features: {
    readonly state_override: boolean | null
    /** eth_simulateV1 with a state override answers (the wallet simulation of the honeypot check) */
    readonly simulate_v1: boolean | null
    readonly debug_trace: boolean | null
  }
  /** avalanchego's /ext/health (null: not an avalanchego C-Chain URL) */
  readonly avalanche_health: { readonly reachable: boolean; readonly healthy: boolean | null } | null
  readonly error: string | null
}

export interface ChainHealth {
  readonly chain: NodeIntelChain
  readonly status: ChainStatus
  readonly rpc_variable: string
  readonly expected_chain_id: number
  readonly nodes: readonly NodeHealth[]
  /**
   * the honeypot check simulates a wallet with eth_simulateV1 (true) or calls the probe contract (false):
   * the answer the checks use (null: the node did not answer)
   */
  readonly simulate_v1: boolean | null
  /** the shared client's counters (calls, errors, failovers, rate-limit waits, latency) */
  readonly client: ChainClientStats | null
  /**
   * the watch list's re-checks: tokens watched, last block scanned, triggers, re-checks, changes, errors and
   * triggers dropped because the queue was full (null: no re-checks on this chain)
   */
  readonly rechecks: RecheckStats | null
}

const optional = async <T>(p: Promise<T>): Promise<T | null> => {
  try {
    return await p
  } catch (err) {
    if (isTransportError(err)) throw err
    return null
  }
}

/** A JSON-RPC method outside viem's public-client schema (eth_syncing, net_peerCount, debug_*). */
function raw<T>(c: PublicClient, method: string, params: readonly unknown[] = []): Promise<T> {
  return (c.request as (a: { method: string; params: readonly unknown[] }) => Promise<T>)({ method, params })
}

async function debugTrace(c: PublicClient): Promise<boolean> {
  try {
    await raw(c, 'debug_traceCall', [
      { to: '0x0000000000000000000000000000000000000001', data: '0x' },
      'latest',
      { tracer: 'callTracer' }
    ])
    return true
  } catch (err) {
    if (isTransportError(err)) throw err
    return false
  }
}

/** `http(s)://host:port/ext/health` for an avalanchego `/ext/bc/C/rpc` URL, else null. */
export function extHealthUrl(rpcUrl: string): string | null {
  try {
    const u = new URL(rpcUrl)
    if (!/\/ext\/bc\/C\/rpc\/?$/.test(u.pathname)) return null
    return `${u.origin}${u.pathname.replace(/\/ext\/bc\/C\/rpc\/?$/, '')}/ext/health`
  } catch {
    return null
  }
}

async function avalancheHealth(rpcUrl: string): Promise<NodeHealth['avalanche_health']> {
  const url = extHealthUrl(rpcUrl)
  if (!url) return null
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(EXT_HEALTH_TIMEOUT_MS) })
    await res.arrayBuffer()
    return { reachable: true, healthy: res.status === 200 ? true : res.status === 503 ? false : null }
  } catch {
    return { reachable: false, healthy: null }
  }
}

async function nodeHealth(client: ChainClient, index: number): Promise<NodeHealth> {
  const url = client.nodeLabels[index]!
  const ext = client.chain === 'avalanche' ? avalancheHealth(client.urls[index]!) : Promise.resolve(null)
  try {
    const [chainId, block, syncing, peers, version] = await client.requestOn(index, 'node_health', (c) =>
      Promise.all([
        c.getChainId(),
        c.getBlock({ blockTag: 'latest' }),
        optional(raw<unknown>(c, 'eth_syncing')),
        optional(raw<string>(c, 'net_peerCount')),
        optional(raw<string>(c, 'web3_clientVersion'))
      ])
    )
    const latencies: number[] = []
    for (let i = 0; i < 3; i++) {
      const t = performance.now()
      await client.requestOn(index, 'node_latency', (c) => c.getBlockNumber({ cacheTime: 0 }))
      latencies.push(performance.now() - t)
    }
    latencies.sort((a, b) => a - b)
    const [override, simulate, trace] = await client.requestOn(index, 'node_features', (c) =>
      Promise.all([supportsStateOverride(c), supportsSimulateV1(c), debugTrace(c)])
    )
    return {
      url,
      reachable: true,
      chain_id: chainId,
      chain_id_ok: chainId === client.spec.chainId,
      head_block: Number(block.number),
      head_age_s: Math.max(0, Math.round(Date.now() / 1000 - Number(block.timestamp))),
      syncing: syncing === null ? null : syncing !== false,
      peers: typeof peers === 'string' ? Number(BigInt(peers)) : null,
      client_version: typeof version === 'string' ? version.slice(0, 120) : null,
      latency_ms: Math.round(latencies[1]! * 100) / 100,
      features: { state_override: override, simulate_v1: simulate, debug_trace: trace },
      avalanche_health: await ext,
      error: null
    }
  } catch (err) {
    return {
      url,
      reachable: false,
      chain_id: null,
      chain_id_ok: null,
      head_block: null,
      head_age_s: null,
      syncing: null,
      peers: null,
      client_version: null,
      latency_ms: null,
      features: { state_override: null, simulate_v1: null, debug_trace: null },
      avalanche_health: await ext,
      error: errorText(err).slice(0, 300)
    }
  }
}

function status(chain: NodeIntelChain, nodes: readonly NodeHealth[], blockTimeMs: number): ChainStatus {
  const answering = nodes.filter((n) => n.reachable)
  if (answering.length === 0) return 'down'
  const right = answering.filter((n) => n.chain_id_ok)
  if (right.length === 0) return 'chain_mismatch'
  const staleAfter = Math.max(HEAD_MAX_AGE_S, (30 * blockTimeMs) / 1000)
  const fresh = right.some((n) => n.head_age_s !== null && n.head_age_s <= staleAfter && n.syncing !== true)
  void chain
  return fresh ? 'ok' : 'degraded'
}

/** The re-checks of a chain, if it runs them. */
export type RecheckStatsOf = (chain: NodeIntelChain) => RecheckStats | null

export async function chainHealth(
  service: NodeIntelLookup,
  chain: NodeIntelChain,
  rechecks: RecheckStatsOf = () => null
): Promise<ChainHealth> {
  const spec = EVM_CHAINS[nodeIntelChain(chain)]
  if (!service.has(chain)) {
    return {
      chain,
      status: 'not_configured',
      rpc_variable: urlVariableOf(chain),
      expected_chain_id: spec.chainId,
      nodes: [],
      simulate_v1: null,
      client: null,
      rechecks: null
    }
  }
  const intel = service.get(chain)
  const nodes = await Promise.all(intel.client.urls.map((_, i) => nodeHealth(intel.client, i)))
  const simulate = await intel.facts.simulateV1Supported().catch(() => null)
  return {
    chain,
    status: status(chain, nodes, spec.blockTimeMs),
    rpc_variable: intel.client.urlVariable,
    expected_chain_id: spec.chainId,
    nodes,
    simulate_v1: simulate,
    client: intel.client.stats(),
    rechecks: rechecks(chain)
  }
}

/** Every node-intelligence chain (or one), in path order; `status` overall: the worst configured chain's. */
export async function nodeHealthReport(
  service: NodeIntelLookup,
  only?: NodeIntelChain,
  rechecks?: RecheckStatsOf
): Promise<{ status: 'ok' | 'degraded' | 'down'; chains: ChainHealth[] }> {
  const chains = await Promise.all((only ? [only] : NODE_INTEL_CHAINS).map((c) => chainHealth(service, c, rechecks)))
  const configured = chains.filter((c) => c.status !== 'not_configured')
  const status =
    configured.length === 0 || configured.every((c) => c.status === 'down' || c.status === 'chain_mismatch')
      ? 'down'
      : configured.every((c) => c.status === 'ok')
        ? 'ok'
        : 'degraded'
  return { status, chains }
}
