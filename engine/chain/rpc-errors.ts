/**
 * @module
 * How the chain clients tell the way to a node failing from the node's own answer, and how they name an
 * error: a timeout, refused connection, HTTP or socket failure is a transport error (failover, the node set
 * aside); a revert or an unknown method is the node's answer (the caller's to judge).
 */
import { BaseError, HttpRequestError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem'

/** A node that did not answer within its time (the chain client's own timer). */
export class NodeTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`)
  }
}

/** True for failures of the way to the node (timeout, refused, HTTP error), false for answers of the node. */
export function isTransportError(err: unknown): boolean {
  if (err instanceof NodeTimeout) return true
  if (err instanceof BaseError) {
    return (
      err.walk(
        (e) =>
          e instanceof HttpRequestError ||
          e instanceof TimeoutError ||
          e instanceof WebSocketRequestError ||
          e instanceof SocketClosedError
      ) !== null
    )
  }
  return false
}

/** A short message for an error (viem's shortMessage when there is one; never the request body). */
export function errorText(err: unknown): string {
  if (err instanceof BaseError) return err.shortMessage
  return err instanceof Error ? err.message : String(err)
}
