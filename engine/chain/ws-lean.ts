/**
 * @module
 * The lean calls of a chain's first node over its WebSocket (`<ENV>_WS_URL`, ws-rpc.ts), with the node's
 * http lean client (raw-rpc.ts) behind it: the socket's chain id is asked before its first call (a socket on
 * another chain is never used, every call goes over http), and a socket that fails at the transport level is
 * set aside for `downMs` while the call and the next ones go over http. A failing socket leaves the node's
 * http up: the chain client's failover sees only what http answers.
 */
import type { LeanRpc, RpcParams } from './raw-rpc.js'
import { errorText, isTransportError } from './rpc-errors.js'
import { WsRpc } from './ws-rpc.js'

export class WsLean implements LeanRpc {
  /** until then (epoch ms) the lean calls use the node's http client */
  downUntil = 0
  /** the socket's eth_chainId against the chain: true = matches, false = another chain, undefined = not asked */
  chainIdOk: boolean | undefined = undefined
  readonly rpc: WsRpc

  /**
   * @param url the node's WebSocket URL; `timeoutMs` a request's time to answer, ms
   * @param label the URL as errors name it (no path, no credentials)
   * @param http the same node's lean client over http
   * @param chainId the chain's id, the socket's answer must match it
   * @param noteError records a failure for the chain client's stats
   * @param downMs how long a failed socket is set aside, ms
   */
  constructor(
    url: string,
    timeoutMs: number,
    readonly label: string,
    private readonly http: LeanRpc,
    private readonly chainId: number,
    private readonly noteError: (text: string) => void,
    private readonly downMs: number
  ) {
    this.rpc = new WsRpc(url, timeoutMs)
  }

  /** over the socket while it is up and on the chain (no async frame once its chain id is known), else http */
  call<T>(method: string, params: RpcParams): Promise<T> {
    if (this.chainIdOk === false || this.downUntil > Date.now()) return this.http.call<T>(method, params)
    if (this.chainIdOk === undefined) return this.first(method, params)
    return this.rpc.call<T>(method, params).catch((err: unknown) => this.failed<T>(err, method, params))
  }

  close(): Promise<void> {
    return this.rpc.close()
  }

  /** the socket's first call: its chain id asked first */
  private async first<T>(method: string, params: RpcParams): Promise<T> {
    try {
      if (this.chainIdOk === undefined) {
        const id = Number(await this.rpc.call<string>('eth_chainId', []))
        this.chainIdOk = id === this.chainId
        if (!this.chainIdOk) this.noteError(`${this.label}: chain id ${id}, expected ${this.chainId}: not used`)
      }
      if (this.chainIdOk) return await this.rpc.call<T>(method, params)
    } catch (err) {
      return this.failed<T>(err, method, params)
    }
    return this.http.call<T>(method, params)
  }

  /** a transport failure sets the socket aside and sends the call over http; the node's own answers throw */
  private failed<T>(err: unknown, method: string, params: RpcParams): Promise<T> {
    if (!isTransportError(err)) throw err
    this.downUntil = Date.now() + this.downMs
    this.noteError(`${this.label}: ${errorText(err)}`)
    return this.http.call<T>(method, params)
  }
}
