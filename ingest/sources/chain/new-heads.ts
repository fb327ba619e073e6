/**
 * @module
 * New heads of an EVM chain source: a WebSocket subscription (`<ENV>_WS_URL`, eth_subscribe newHeads through
 * viem) wakes the source's loop; polling every `pollMs` is the fallback and always runs.
 */
import { createPublicClient, webSocket } from 'viem'
import { sleep } from '../../../engine/runtime/backoff.js'

/** the subscription as health shows it (sources[].chain.ws) */
export type WsState = 'off' | 'subscribed' | 'failed'

export class NewHeads {
  /** the subscription's state, for health */
  ws: WsState = 'off'
  private wake: (() => void) | null = null

  /**
   * @param wsUrl `<ENV>_WS_URL`; without it only polling runs
   * @param pollMs polling interval, ms
   */
  constructor(
    private readonly wsUrl: string | undefined,
    private readonly pollMs: number
  ) {}

  /**
   * Subscribes to new heads (they wake `idle`). Returns the unsubscribe, which the run calls when it ends (an
   * error the supervisor retries, or the stop): each run subscribes once, so restarts never stack
   * subscriptions on the socket. Safe to call twice.
   */
  subscribe(signal: AbortSignal): () => void {
    const url = this.wsUrl
    if (url === undefined) return () => undefined
    try {
      const client = createPublicClient({ transport: webSocket(url, { retryCount: 0 }) })
      const unwatch = client.watchBlockNumber({
        emitOnBegin: false,
        onBlockNumber: () => this.wake?.(),
        onError: () => (this.ws = 'failed')
      })
      this.ws = 'subscribed'
      let open = true
      const close = (): void => {
        if (!open) return
        open = false
        signal.removeEventListener('abort', close)
        unwatch()
        void client.transport
          .getRpcClient?.()
          .then((c: { close(): void }) => c.close())
          .catch(() => undefined)
      }
      signal.addEventListener('abort', close, { once: true })
      return close
    } catch {
      this.ws = 'failed'
      return () => undefined
    }
  }

  /** waits for the next head: the WebSocket wakes it, polling every pollMs is the fallback */
  async idle(signal: AbortSignal): Promise<void> {
    const done = new AbortController()
    const stop = (): void => done.abort()
    signal.addEventListener('abort', stop, { once: true })
    this.wake = stop
    await sleep(this.pollMs, done.signal)
    signal.removeEventListener('abort', stop)
    this.wake = null
  }
}
