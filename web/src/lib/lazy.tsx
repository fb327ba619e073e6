/**
 * @module
 * A page loaded on first use (a dynamic import: Vite emits it as its own hashed chunk, fetched from this
 * origin, so the Content-Security-Policy needs nothing more). Shows "Loading…" until the module arrives;
 * later renders use the loaded component at once.
 */
import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'

export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null
  return function LazyPage(props: P) {
    const [Page, setPage] = useState<ComponentType<P> | null>(() => loaded)
    const [error, setError] = useState<unknown>(null)
    useEffect(() => {
      if (Page) return
      load().then(
        (c) => {
          loaded = c
          setPage(() => c)
        },
        (e: unknown) => setError(e)
      )
    }, [])
    if (error) return <p class="error">This page could not be loaded ({String(error)}); reload to retry.</p>
    return Page ? <Page {...props} /> : <p class="muted">Loading…</p>
  }
}
