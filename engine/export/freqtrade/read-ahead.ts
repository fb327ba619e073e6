/**
 * @module
 * A query read ahead of its reader: the freqtrade layout's funding and mark queries run while the candle
 * files stream, on another store connection, instead of after them. From the call on, the source is pulled
 * into a queue of at most `maxBytes` unread bytes (plus the one chunk that crosses it); when the queue is
 * full the pulling stops, and a chDB query stops with it (a fetch is pulled, not pushed). The reader gets
 * the chunks in order, then the source's error if it failed. `return()` stops the pulling and cancels the
 * source: call it whenever the reader is done or gives up, or the query holds its connection until the
 * queue is full.
 */

export interface ReadAhead extends AsyncIterableIterator<Uint8Array> {
  return(): Promise<IteratorResult<Uint8Array>>
}

export function readAhead(source: AsyncIterable<Uint8Array>, maxBytes: number): ReadAhead {
  const it = source[Symbol.asyncIterator]()
  const held: Uint8Array[] = []
  let heldBytes = 0
  let finished = false
  let failure: { readonly err: unknown } | null = null
  let stopped = false
  /** the reader waiting for a chunk, the pump waiting for room */
  let wakeReader: (() => void) | null = null
  let wakePump: (() => void) | null = null
  const wake = (w: (() => void) | null) => w?.()

  const pump = (async () => {
    try {
      while (!stopped) {
        if (heldBytes >= maxBytes) {
          await new Promise<void>((resolve) => (wakePump = resolve))
          continue
        }
        const r = await it.next()
        if (r.done || stopped) break
        held.push(r.value)
        heldBytes += r.value.length
        wake(wakeReader)
        wakeReader = null
      }
    } catch (err) {
      failure = { err }
    } finally {
      finished = true
      wake(wakeReader)
      wakeReader = null
    }
  })()

  const iterator: ReadAhead = {
    [Symbol.asyncIterator]: () => iterator,
    async next() {
      for (;;) {
        const chunk = held.shift()
        if (chunk !== undefined) {
          heldBytes -= chunk.length
          wake(wakePump)
          wakePump = null
          return { value: chunk, done: false }
        }
        if (failure !== null && !stopped) {
          stopped = true
          throw failure.err
        }
        if (finished || stopped) return { value: undefined, done: true }
        await new Promise<void>((resolve) => (wakeReader = resolve))
      }
    },
    async return() {
      if (!stopped) {
        stopped = true
        held.length = 0
        heldBytes = 0
        wake(wakePump)
        wakePump = null
        await it.return?.() // an async generator runs it after a pending next(): the query is cancelled
      }
      await pump
      return { value: undefined, done: true }
    }
  }
  return iterator
}
