/**
 * @module
 * A small history router: the current path as a Preact signal-free hook, `navigate()` for links. The server
 * answers index.html for every app path (server/web), so deep links and reloads work.
 */
import { useEffect, useState } from 'preact/hooks'

const subscribers = new Set<() => void>()

export function navigate(to: string): void {
  if (to === location.pathname + location.search) return
  history.pushState(null, '', to)
  for (const s of subscribers) s()
}

addEventListener('popstate', () => {
  for (const s of subscribers) s()
})

/** The current location (path and query), re-rendering on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, tick] = useState(0)
  useEffect(() => {
    const s = (): void => tick((n) => n + 1)
    subscribers.add(s)
    return () => subscribers.delete(s)
  }, [])
  return { path: location.pathname, query: new URLSearchParams(location.search) }
}

/** Click handler for in-app links: no reload. */
export function linkTo(to: string) {
  return (e: MouseEvent): void => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return
    e.preventDefault()
    navigate(to)
  }
}
