/**
 * @module
 * The push stream's fan-out: who holds each topic, and a published frame written to each of them within
 * the same event-loop turn. uWS' own pub/sub queues published frames until its once-per-iteration drain,
 * which waits for the rest of the turn's I/O: tens to hundreds of ms under load (docs/benchmarks.md
 * "Wire"). Here the frames published during one microtask run (the live state's drain:
 * engine/live/live-state.ts) are gathered per socket and written right after it, one corked write per
 * socket, in publish order; a frame sent to a socket directly first writes what is pending for it (order
 * per socket holds). Frames a socket refuses (over its hard backpressure cap) are counted.
 */

/** A socket as the fan-out sees it (server/http/uws-stream.ts `Conn`). */
export interface FanoutSocket {
  readonly closed: boolean
  /** frames published to it and not yet written, in order; null: none (set and cleared by the fan-out) */
  pending: (string | Uint8Array)[] | null
  /** Writes frames now, in order, in one corked write; returns how many were refused. */
  write(frames: readonly (string | Uint8Array)[]): number
}

export class Fanout<S extends FanoutSocket = FanoutSocket> {
  /** holders per topic, in the order they subscribed */
  private readonly topics = new Map<string, Set<S>>()
  /** sockets with pending frames, written when the current microtask run ends */
  private due: S[] = []

  /** `dropped`: called with the count of frames sockets refused. */
  constructor(private readonly dropped: (frames: number) => void) {}

  subscribe(topic: string, sock: S): void {
    let holders = this.topics.get(topic)
    if (!holders) this.topics.set(topic, (holders = new Set()))
    holders.add(sock)
  }

  unsubscribe(topic: string, sock: S): void {
    const holders = this.topics.get(topic)
    if (!holders?.delete(sock)) return
    if (holders.size === 0) this.topics.delete(topic)
  }

  subscribers(topic: string): number {
    return this.topics.get(topic)?.size ?? 0
  }

  /** Queues `frame` for every holder of `topic`; written at the end of the current microtask run. */
  publish(topic: string, frame: string | Uint8Array): void {
    const holders = this.topics.get(topic)
    if (!holders) return
    if (this.due.length === 0) queueMicrotask(this.flush)
    for (const sock of holders) {
      if (sock.pending === null) {
        sock.pending = [frame]
        this.due.push(sock)
      } else sock.pending.push(frame)
    }
  }

  /** Writes what is pending for `sock` now (before a frame sent to it directly). */
  writePending(sock: S): void {
    const frames = sock.pending
    if (frames === null) return
    sock.pending = null
    const refused = sock.closed ? 0 : sock.write(frames)
    if (refused > 0) this.dropped(refused)
  }

  private readonly flush = (): void => {
    const due = this.due
    this.due = []
    for (const sock of due) this.writePending(sock)
  }
}
