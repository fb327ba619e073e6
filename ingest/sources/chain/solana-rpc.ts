/**
 * @module
 * The Solana source's JSON-RPC client (solana-source.ts): plain JSON-RPC over fetch (undici; Solana has no
 * viem client), each request bounded by a timeout and ended at once by the run's stop; answers recorded to
 * or replayed from an RPC tape (rpc-tape.ts: CHAIN_RECORD_DIR, CHAIN_REPLAY_DIR). It counts calls and
 * errors and whether the node is reachable: an error answer means the node is there (a transaction it
 * cannot give is not an outage), a failed request that it is not.
 */
import type { SolanaSettings } from './chain-settings.js'
import { RecordedError, TapePlayer, TapeRecorder, tapeFile } from './rpc-tape.js'

/** one JSON-RPC request's time to answer, ms */
export const REQUEST_TIMEOUT_MS = 10_000
/** the source's name: its tape file is `<dir>/solana.ndjson` */
const SOURCE_NAME = 'solana'

/** the node answered the call with a JSON-RPC error object (it is reachable; the call's subject is at fault) */
export class RpcAnswerError extends Error {}

export class SolanaRpc {
  /** calls made (a replayed answer counts) */
  calls = 0
  /** calls that failed, and answers the caller found malformed (`errors += 1` there) */
  errors = 0
  /** the node answered the last call, or the caller saw it answer since; false after a failed request */
  connected = false
  /** the current run's stop signal (`run`) */
  private stopped: AbortSignal = new AbortController().signal
  private nextId = 1
  private tape: TapePlayer | TapeRecorder | null = null

  /** `requestTimeoutMs`: one request's time to answer. @default REQUEST_TIMEOUT_MS */
  constructor(
    private readonly settings: SolanaSettings,
    private readonly requestTimeoutMs: number = REQUEST_TIMEOUT_MS
  ) {}

  /** Calls from now on belong to the run that `signal` stops. */
  run(signal: AbortSignal): void {
    this.stopped = signal
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const { replayDir, recordDir } = this.settings
    if (replayDir !== undefined) {
      if (!(this.tape instanceof TapePlayer)) this.tape = new TapePlayer(tapeFile(replayDir, SOURCE_NAME))
      this.calls += 1
      try {
        return this.tape.answer<T>(method, params)
      } catch (err) {
        // a recorded error answer replays as one (a transaction the node could not give is waited for again)
        this.errors += 1
        if (err instanceof RecordedError && err.answer) throw new RpcAnswerError(err.message)
        this.connected = false
        throw err
      }
    }
    if (recordDir !== undefined && !(this.tape instanceof TapeRecorder)) {
      this.tape = new TapeRecorder(tapeFile(recordDir, SOURCE_NAME))
    }
    const tape = this.tape instanceof TapeRecorder ? this.tape : null
    let result: T
    try {
      result = await this.node<T>(method, params)
    } catch (err) {
      // the node's failures are recorded too; a stop is not the node's
      if (!this.stopped.aborted) tape?.recordError(method, params, err, err instanceof RpcAnswerError)
      throw err
    }
    tape?.record(method, params, result)
    return result
  }

  private async node<T>(method: string, params: unknown[]): Promise<T> {
    const url = this.settings.rpcUrl
    if (url === undefined) throw new Error('SOLANA_RPC_URL is not set')
    this.calls += 1
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        // the run's stop ends a request in flight at once: a stop never waits for a slow node
        signal: AbortSignal.any([this.stopped, AbortSignal.timeout(this.requestTimeoutMs)])
      })
      if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`)
      const body = (await res.json()) as { result?: T; error?: { code: number; message: string } }
      if (body.error) throw new RpcAnswerError(`${method}: ${body.error.code} ${body.error.message}`)
      return body.result as T
    } catch (err) {
      if (this.stopped.aborted) throw err // the stop, not the node
      this.errors += 1
      // an error answer means the node is there (a transaction it cannot give is not an outage)
      if (!(err instanceof RpcAnswerError)) this.connected = false
      throw err
    }
  }
}
