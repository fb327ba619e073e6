/**
 * @module
 * The shapes of the chain client (engine/chain/chain-client.ts): its options, a call's options, the state it
 * keeps per node, its counters for /v1/node/health and /v1/health, and a node URL's redacted label.
 */
import type { PublicClient } from 'viem'
import type { EvmChainName } from './chains.js'
import type { LeanRpc, RawRpc } from './raw-rpc.js'
import type { WsLean } from './ws-lean.js'

export interface ChainClientOptions {
  readonly chain: EvmChainName
  /** http(s) JSON-RPC URLs in order of preference */
  readonly urls: readonly string[]
  /** the variable the URLs came from, for messages. @default `<ENV>_RPC_URL` */
  readonly urlVariable?: string
  /** requests per second (and burst) to this chain, all callers together. @default 50 */
  readonly ratePerSec?: number
  /** one node's time to answer one request, ms. @default 5000 */
  readonly timeoutMs?: number
  /**
   * `<ENV>_WS_URL`: the chain's node over WebSocket. The lean calls of the first node (the wallet simulation
   * and its head read) go over it; while it fails at the transport level they go over that node's http URL.
   */
  readonly wsUrl?: string
}

export interface RequestOptions {
  /** the whole call's deadline (waiting for the rate limit, failover included), ms. @default timeoutMs × nodes */
  readonly timeoutMs?: number
  /**
   * false: `fn` gets a client that sends each JSON-RPC request at once, for a latency-bound single call
   * (the batching client waits one timer turn, ~1 ms, to gather a batch). @default true
   */
  readonly batch?: boolean
}

export interface ChainClientNode {
  /** scheme, host and port only: paths and credentials often carry provider keys */
  readonly label: string
  /** the configured URL */
  readonly url: string
  readonly client: PublicClient
  /** the same node without JSON-RPC batching */
  readonly direct: PublicClient
  /** the same node through the lean client (one kept-alive pool), for large calls */
  readonly raw: RawRpc
  /** the lean calls' WebSocket (`<ENV>_WS_URL`, the first node only), tried before `raw` */
  readonly ws: WsLean | null
  /** what callers get as the lean client: the WebSocket first where there is one, else `raw` */
  readonly lean: LeanRpc
  downUntil: number
  failures: number
  /** last eth_chainId check: true = matches, false = another chain, undefined = not checked */
  chainIdOk: boolean | undefined
}

export interface ChainClientStats {
  readonly chain: EvmChainName
  readonly nodes: readonly { readonly url: string; readonly up: boolean; readonly failures: number }[]
  /** request() calls made (each may be several JSON-RPC requests, batched) */
  readonly calls: number
  /** calls that ended in chain_unavailable (every node failed, timed out, or the rate budget was used up) */
  readonly errors: number
  /** calls the node answered with an error of its own (revert, unknown method) */
  readonly rpc_errors: number
  /** times a node failed at the transport level and the next one was tried */
  readonly failovers: number
  /** calls that waited for the rate limit / were refused by it */
  readonly throttled: number
  readonly rate_refused: number
  readonly last_error: string | null
  readonly last_error_at: number | null
  /** median latency of the last 64 successful calls, ms (null before any) */
  readonly latency_ms_p50: number | null
}

/** `http://host:port` of a URL (no path, no credentials). */
export function nodeLabel(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? '/…' : ''}`
  } catch {
    return 'invalid-url'
  }
}
