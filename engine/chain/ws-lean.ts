/**
 * @module
 * The lean calls of a chain's first node over its WebSocket (`<ENV>_WS_URL`, ws-rpc.ts), with the node's
 * http lean client (raw-rpc.ts) behind it: the socket's chain id is asked before its first call (a socket on
 * another chain is never used, every call goes over http), and a socket that fails at the transport level is
 * set aside for `downMs` while the call and the next ones go over http. A failing socket leaves the node's
 * http up: the chain client's failover sees only what http answers. The socket's code (ws-rpc.ts, the `ws`
 * package) is loaded by the first call, so a configuration that never calls a node does not load it.
 */
import type { AnswerPicker, LeanRpc, RpcParams } from './raw-rpc.js'
import { errorText, isTransportError } from './rpc-errors.js'
import type { WsRpc } from './ws-rpc.js'

export class WsLean implements LeanRpc {
  /** until then (epoch ms) the lean calls use the node's http client */
  downUntil = 0
  /** the socket's eth_chainId against the chain: true = matches, false = another chain, undefined = not asked */
  chainIdOk: boolean | undefined = undefined
  /** set by the first call (`first`), before `chainIdOk` is known */
  private rpc: WsRpc | null = null
  private loading: Promise<WsRpc> | undefined

  /**
   * @param url the node's WebSocket URL; `timeoutMs` a request's time to answer, ms
   * @param label the URL as errors name it (no path, no credentials)
   * @param http the same node's lean client over http
   * @param chainId the chain's id, the socket's answer must match it
   * @param noteError records a failure for the chain client's stats
   * @param downMs how long a failed socket is set aside, ms
   */
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    readonly label: string,
    private readonly http: LeanRpc,
    private readonly chainId: number,
    private readonly noteError: (text: string) => void,
    private readonly downMs: number
  ) {}

  /**
   * over the socket while it is up and on the chain (no async frame once its chain id is known), else http
   * (`pick` read over http only: the socket's answers are parsed whole to find their id)
   */
  call<T>(method: string, params: RpcParams, pick?: AnswerPicker): Promise<T> {
    if (this.chainIdOk === false || this.downUntil > Date.now()) return this.http.call<T>(method, params, pick)
    if (this.chainIdOk === undefined || this.rpc === null) return this.first(method, params, pick)
    return this.rpc.call<T>(method, params).catch((err: unknown) => this.failed<T>(err, method, params, pick))
  }

  async close(): Promise<void> {
    const rpc = this.rpc ?? (await this.loading)
    await rpc?.close()
  }

  /** the socket's client, its module loaded on the first call */
  private socket(): Promise<WsRpc> {
    this.loading ??= import('./ws-rpc.js').then(({ WsRpc }) => (this.rpc = new WsRpc(this.url, this.timeoutMs)))
    return this.loading
  }

  /** the socket's first call: its chain id asked first */
  private async first<T>(method: string, params: RpcParams, pick?: AnswerPicker): Promise<T> {
    try {
      const rpc = await this.socket()
      if (this.chainIdOk === undefined) {
        const id = Number(await rpc.call<string>('eth_chainId', []))
        this.chainIdOk = id === this.chainId
        if (!this.chainIdOk) this.noteError(`${this.label}: chain id ${id}, expected ${this.chainId}: not used`)
      }
      if (this.chainIdOk) return await rpc.call<T>(method, params)
    } catch (err) {
      return this.failed<T>(err, method, params, pick)
    }
    return this.http.call<T>(method, params, pick)
  }

  /** a transport failure sets the socket aside and sends the call over http; the node's own answers throw */
  private failed<T>(err: unknown, method: string, params: RpcParams, pick?: AnswerPicker): Promise<T> {
    if (!isTransportError(err)) throw err
    this.downUntil = Date.now() + this.downMs
    this.noteError(`${this.label}: ${errorText(err)}`)
    return this.http.call<T>(method, params, pick)
  }
}
