/**
 * @module
 * Ctrl-C during a long CLI command (`import`, `export`): the work gets a signal that SIGINT aborts, so it
 * stops cleanly (part files removed, "interrupted" said) instead of the process dying mid-write. The
 * handler is removed when the work settles; a Ctrl-C after that ends the process as usual.
 */

/** Runs `work` with an AbortSignal that the next SIGINT aborts. */
export async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController()
  const onSigint = (): void => abort.abort()
  process.once('SIGINT', onSigint)
  try {
    return await work(abort.signal)
  } finally {
    process.off('SIGINT', onSigint)
  }
}
