/**
 * @module
 * One chain's JSON-RPC client, shared by every feature that reads the chain (whale sources, node
 * intelligence): a viem `PublicClient` per configured node (http, with and without JSON-RPC batching) and
 * a lean client for large calls (raw-rpc.ts: the wallet simulation; over the chain's WebSocket endpoint,
 * ws-rpc.ts, for the first node when `<ENV>_WS_URL` is set),
 * failover in the configured order (the first healthy node answers; a node that failed at the transport
 * level sits out `NODE_DOWN_MS` unless no other is left), one token bucket per chain (`<ENV>_RPC_RATE`), a
 * per-node timeout, and counters for /v1/node/health and /v1/health.
 *
 * Failover is this module's, not viem's `fallback` transport: a call has one deadline across all nodes, a
 * node's chain id is checked before its first use once `verifyChainId` ran (a node on another chain is never
 * asked), and each failover is counted; viem's `fallback` transport offers none of the three.
 *
 * Errors: a timeout, refused connection or HTTP failure on every node becomes `ApiError('chain_unavailable')`
 * (503) naming the chain; errors the node itself answered (a revert, an unknown method) reach the caller as
 * viem raised them, so callers can tell "the token reverted" from "the node is down".
 */
import { createPublicClient, http, type PublicClient, type Transport } from 'viem'
import { ApiError } from '../errors.js'
import { EVM_CHAINS, type ChainSpec, type EvmChainName } from './chains.js'
import { DEFAULT_RPC_RATE, DEFAULT_RPC_TIMEOUT_MS } from './rpc-config.js'
import { TokenBucket } from '../runtime/token-bucket.js'
import { RawRpc, type LeanRpc } from './raw-rpc.js'
import { errorText, isTransportError, NodeTimeout } from './rpc-errors.js'
import { WsLean } from './ws-lean.js'
import {
  nodeLabel,
  type ChainClientNode as Node,
  type ChainClientOptions,
  type ChainClientStats,
  type RequestOptions
} from './chain-client-types.js'

/** How long a node that failed at the transport level is tried only after the others, ms. */
export const NODE_DOWN_MS = 10_000
/** Calls whose latency feeds the median in `stats()`. */
const LATENCY_WINDOW = 64

export class ChainClient {
  readonly chain: EvmChainName
  readonly spec: ChainSpec
  readonly urls: readonly string[]
  readonly urlVariable: string
  readonly timeoutMs: number
  readonly ratePerSec: number
  private readonly nodes: Node[]
  private readonly bucket: TokenBucket
  private readonly latencies: number[] = []
  private counts = { calls: 0, errors: 0, rpc_errors: 0, failovers: 0 }
  /**
   * set once verifyChainId ran: from then on a node not checked yet (it did not answer then) is checked before
   * its first use, and a node on another chain is never used (failover skips it)
   */
  private checkNodes = false
  private lastError: string | null = null
  private lastErrorAt: number | null = null

  constructor(opts: ChainClientOptions) {
    if (opts.urls.length === 0) throw new RangeError(`ChainClient(${opts.chain}) needs at least one URL`)
    this.chain = opts.chain
    this.spec = EVM_CHAINS[opts.chain]
    this.urls = Object.freeze([...opts.urls])
    this.urlVariable = opts.urlVariable ?? `${this.spec.envName}_RPC_URL`
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS
    this.ratePerSec = opts.ratePerSec ?? DEFAULT_RPC_RATE
    this.bucket = new TokenBucket({ ratePerSec: this.ratePerSec })
    const wsUrl = opts.wsUrl
    this.nodes = this.urls.map((u, i) => {
      const raw = new RawRpc(u, this.timeoutMs)
      const ws =
        i === 0 && wsUrl !== undefined
          ? new WsLean(
              wsUrl,
              this.timeoutMs,
              nodeLabel(wsUrl),
              raw,
              this.spec.chainId,
              (t) => this.noteError(t),
              NODE_DOWN_MS
            )
          : null
      const node: Node = {
        label: nodeLabel(u),
        url: u,
        client: createPublicClient({ transport: this.transport(u) }) as PublicClient,
        direct: createPublicClient({
          transport: http(u, { batch: false, timeout: this.timeoutMs, retryCount: 0 })
        }) as PublicClient,
        raw,
        ws,
        lean: ws ?? raw,
        downUntil: 0,
        failures: 0,
        chainIdOk: undefined
      }
      return node
    })
  }

  private transport(url: string): Transport {
    return http(url, { batch: { wait: 0 }, timeout: this.timeoutMs, retryCount: 0 })
  }

  /** configured nodes (index order = preference) with their redacted URLs */
  get nodeLabels(): readonly string[] {
    return this.nodes.map((n) => n.label)
  }

  /**
   * Runs `fn` against the first healthy node, failing over to the next on transport errors; rate limited
   * per chain. `label` names the call in errors and logs (e.g. `honeypot_probe`).
   */
  request<T>(label: string, fn: (c: PublicClient, raw: LeanRpc) => Promise<T>, opts: RequestOptions = {}): Promise<T> {
    const batch = opts.batch !== false
    try {
      return this.failover(label, opts, (node) => fn(batch ? node.client : node.direct, node.lean))
    } catch (err) {
      return Promise.reject(err) // `fn` threw before returning its promise
    }
  }

  /**
   * The call on the first healthy node, then on the others in order on transport errors, within one deadline.
   * When a token of the rate limit is at hand and the first node is up and needs no chain id check (every
   * call of a healthy chain), the call starts at once: no promise for the rate limit, no node order sorted.
   */
  private failover<T>(label: string, opts: RequestOptions, start: (node: Node) => Promise<T>): Promise<T> {
    const budget = opts.timeoutMs ?? this.timeoutMs * this.nodes.length
    const deadline = performance.now() + budget
    this.counts.calls++
    if (!this.bucket.tryTake()) {
      return this.admit(label, budget).then(() => this.tryNodes(label, budget, deadline, start, null, undefined))
    }
    const first = this.nodes[0]!
    const ready = first.chainIdOk === true || (first.chainIdOk === undefined && !this.checkNodes)
    if (!ready || first.downUntil > Date.now()) return this.tryNodes(label, budget, deadline, start, null, undefined)
    return this.onNode(first, () => start(first), timerMs(Math.min(this.timeoutMs, budget))).catch((err: unknown) => {
      if (!isTransportError(err)) throw err
      this.counts.failovers++
      return this.tryNodes(label, budget, deadline, start, first, err)
    })
  }

  /**
   * The nodes in order (those up first, in configured order), `tried` left out, until one answers or the
   * deadline (performance.now() ms) passes; `last` is the transport error so far.
   */
  private async tryNodes<T>(
    label: string,
    budget: number,
    deadline: number,
    start: (node: Node) => Promise<T>,
    tried: Node | null,
    last: unknown
  ): Promise<T> {
    const now = Date.now()
    const order = [...this.nodes].sort((a, b) => Number(a.downUntil > now) - Number(b.downUntil > now))
    for (const node of order) {
      if (node === tried) continue
      const left = deadline - performance.now()
      if (left <= 0) break
      try {
        if (!(await this.onRightChain(node, timerMs(Math.min(this.timeoutMs, left))))) continue
        return await this.onNode(
          node,
          () => start(node),
          timerMs(Math.min(this.timeoutMs, deadline - performance.now()))
        )
      } catch (err) {
        if (!isTransportError(err)) throw err
        last = err
        this.counts.failovers++
      }
    }
    throw this.unavailable(label, budget, last)
  }

  /**
   * False for a node known to be on another chain. Once verifyChainId ran, a node that was not checked then
   * (it did not answer) is checked now, before its first use: a node that comes back on another chain is
   * skipped, never asked (its answers would be another chain's data). Transport errors of the check propagate.
   */
  private async onRightChain(node: Node, ms: number): Promise<boolean> {
    if (node.chainIdOk === false) return false
    if (node.chainIdOk === true || !this.checkNodes) return true
    const id = await this.onNode(node, () => node.direct.getChainId(), ms)
    node.chainIdOk = id === this.spec.chainId
    if (!node.chainIdOk) this.noteError(`${node.label}: chain id ${id}, expected ${this.spec.chainId}: not used`)
    return node.chainIdOk
  }

  /**
   * Runs `fn` on one node (index into the configured URLs), without failover: node health checks each
   * node on its own. Rate limited like request().
   */
  async requestOn<T>(
    index: number,
    label: string,
    fn: (c: PublicClient) => Promise<T>,
    timeoutMs?: number
  ): Promise<T> {
    const node = this.nodes[index]
    if (!node) throw new RangeError(`${this.chain} has no node #${index}`)
    const ms = timeoutMs ?? this.timeoutMs
    this.counts.calls++
    await this.admit(label, ms)
    try {
      return await this.onNode(node, () => fn(node.client), ms)
    } catch (err) {
      if (isTransportError(err)) throw this.unavailable(label, ms, err, node.label)
      throw err
    }
  }

  private async admit(label: string, budget: number): Promise<void> {
    if (await this.bucket.take(budget / 2)) return
    this.counts.errors++
    this.noteError(`${label}: request budget used up`)
    throw new ApiError(
      'chain_unavailable',
      `the ${this.chain} node's request budget (${this.spec.envName}_RPC_RATE=${this.ratePerSec}/s) is used up; retry shortly`,
      { headers: { 'Retry-After': '1' }, details: { chain: this.chain } }
    )
  }

  /**
   * `start`'s call on `node`, failed with NodeTimeout after `ms` (whole ms: Node keeps one timer list per
   * duration). One promise and one timer per call; a transport failure sets the node aside (NODE_DOWN_MS).
   */
  private onNode<T>(node: Node, start: () => Promise<T>, ms: number): Promise<T> {
    const started = performance.now()
    const call = start()
    return new Promise<T>((resolve, reject) => {
      let settled = false
      const fail = (err: unknown): void => {
        if (isTransportError(err)) {
          call.catch(() => undefined) // the losing call ends on its own transport timeout
          node.failures++
          node.downUntil = Date.now() + NODE_DOWN_MS
          this.noteError(`${node.label}: ${errorText(err)}`)
        } else {
          this.counts.rpc_errors++
        }
        reject(err)
      }
      const timer = setTimeout(() => {
        if (settled) return
        settled = true
        fail(new NodeTimeout(ms))
      }, ms)
      call.then(
        (result) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          this.latency(performance.now() - started)
          node.downUntil = 0
          resolve(result)
        },
        (err: unknown) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          fail(err)
        }
      )
    })
  }

  private unavailable(label: string, ms: number, cause: unknown, node?: string): ApiError {
    this.counts.errors++
    const where = node ?? (this.nodes.length === 1 ? this.nodes[0]!.label : `${this.nodes.length} nodes`)
    return new ApiError(
      'chain_unavailable',
      `the ${this.chain} node (${where}) did not answer ${label} within ${Math.round(ms)} ms: ${cause === undefined ? 'no time left' : errorText(cause)}`,
      { cause, headers: { 'Retry-After': '5' }, details: { chain: this.chain } }
    )
  }

  /**
   * Checks every reachable node's `eth_chainId` against the chain's. A node on another chain throws
   * `chain_mismatch` naming expected and actual; when no node answers, `chain_unavailable`.
   */
  async verifyChainId(): Promise<void> {
    this.checkNodes = true
    let answered = 0
    let last: unknown
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.nodes[i]!
      let id: number
      try {
        id = await this.requestOn(i, 'eth_chainId', (c) => c.getChainId())
      } catch (err) {
        last = err
        continue
      }
      answered++
      node.chainIdOk = id === this.spec.chainId
      if (!node.chainIdOk) {
        throw new ApiError(
          'chain_mismatch',
          `${this.urlVariable} node ${node.label} reports chain id ${id}, expected ${this.spec.chainId} (${this.chain})`,
          { details: { chain: this.chain, expected_chain_id: this.spec.chainId, actual_chain_id: id } }
        )
      }
    }
    if (answered === 0) throw last instanceof ApiError ? last : this.unavailable('eth_chainId', this.timeoutMs, last)
  }

  /** the last chain id check of node `index` (undefined: not checked yet) */
  chainIdOk(index: number): boolean | undefined {
    return this.nodes[index]?.chainIdOk
  }

  /** every node checked so far: false when one is on another chain, true when all checked are right, null when none was */
  chainIdsOk(): boolean | null {
    const checked = this.nodes.filter((n) => n.chainIdOk !== undefined)
    if (checked.length === 0) return null
    return checked.every((n) => n.chainIdOk === true)
  }

  /** closes the lean clients' kept-alive connections (viem's go through the process's shared fetch pool) */
  async close(): Promise<void> {
    await Promise.all(this.nodes.flatMap((n) => [n.raw.close(), n.ws?.close()]))
  }

  private latency(ms: number): void {
    this.latencies.push(ms)
    if (this.latencies.length > LATENCY_WINDOW) this.latencies.shift()
  }

  private noteError(text: string): void {
    this.lastError = text.slice(0, 300)
    this.lastErrorAt = Date.now()
  }

  stats(): ChainClientStats {
    const now = Date.now()
    const sorted = [...this.latencies].sort((a, b) => a - b)
    return {
      chain: this.chain,
      nodes: this.nodes.map((n) => ({ url: n.label, up: n.downUntil <= now, failures: n.failures })),
      ...this.counts,
      throttled: this.bucket.waited,
      rate_refused: this.bucket.refused,
      last_error: this.lastError,
      last_error_at: this.lastErrorAt,
      latency_ms_p50: sorted.length === 0 ? null : Math.round(sorted[Math.floor(sorted.length / 2)]! * 100) / 100
    }
  }
}

/** A timer's duration: whole ms, at least 1 (a fraction would give each timer a list of its own). */
const timerMs = (ms: number): number => Math.max(1, Math.floor(ms))
