/**
 * @module
 * A body whose first chunk is already pulled: errors before any byte then surface while an error status can
 * still be sent, and the rest streams as it comes.
 */

/**
 * Pulls the first chunk now (errors before any byte become a JSON error answer) and returns an iterable
 * that yields it and then the rest. Unlike a generator that has not started, its `return()` always reaches
 * the source, so a client gone before the first write still cancels the query and removes temp files.
 */
export async function primed(source: AsyncIterable<Uint8Array>): Promise<AsyncIterableIterator<Uint8Array>> {
  const it = source[Symbol.asyncIterator]()
  let held: IteratorResult<Uint8Array> | null = await it.next()
  const iterator: AsyncIterableIterator<Uint8Array> = {
    [Symbol.asyncIterator]: () => iterator,
    next() {
      const first = held
      held = null
      return first ? Promise.resolve(first) : it.next()
    },
    async return() {
      held = null
      await it.return?.()
      return { done: true, value: undefined }
    }
  }
  return iterator
}
