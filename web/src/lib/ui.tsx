/**
 * @module
 * Shared view pieces: the page frame (title, demo-data badge, error line), the symbol box of market views, a data-loading hook over the
 * API client, and a canvas hook that redraws on data change and resize at the device's pixel ratio.
 */
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { TidewatchError } from './api.js'

export function Page(props: {
  title: string
  synthetic?: boolean
  children: ComponentChildren
  tools?: ComponentChildren
}) {
  return (
    <section class="page">
      <header class="page-head">
        <h1>{props.title}</h1>
        {props.synthetic ? (
          <span class="badge demo" title="The service holds demo (synthetic) data: these numbers are not real markets">
            Demo data (synthetic)
          </span>
        ) : null}
        <div class="tools">{props.tools}</div>
      </header>
      {props.children}
    </section>
  )
}

/** A market view's symbol box: the typed text becomes the symbol on submit (empty: BTC); `children` are the view's other controls. */
export function SymbolForm(props: {
  symbol: string
  onSymbol: (symbol: string) => void
  size: number
  submit: string
  children?: ComponentChildren
}) {
  const [input, setInput] = useState(props.symbol)
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault()
        props.onSymbol(input.trim() || 'BTC')
      }}
    >
      <input aria-label="Symbol" value={input} onInput={(e) => setInput(e.currentTarget.value)} size={props.size} />
      {props.children}
      <button type="submit">{props.submit}</button>
    </form>
  )
}

export function ErrorLine(props: { error: unknown }) {
  if (!props.error) return null
  const e = props.error
  const text = e instanceof TidewatchError ? `${e.status} ${e.code}: ${e.message}` : String(e)
  return (
    <p class="error" role="alert">
      {text}
      {e instanceof TidewatchError && e.status === 401 ? ' (log in, or paste an API key on the Account page)' : ''}
    </p>
  )
}

export interface Loaded<T> {
  readonly data: T | null
  readonly error: unknown
  readonly loading: boolean
  reload(): void
  set(data: T): void
}

/**
 * Runs `load` (a call of the API client) and keeps its answer; `key` names what is loaded (null: nothing
 * to load): the call runs again when it changes, or on reload().
 */
export function useApi<T>(key: string | null, load: () => Promise<T>): Loaded<T> {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(false)
  const [n, setN] = useState(0)
  useEffect(() => {
    if (key === null) return
    let live = true
    setLoading(true)
    load().then(
      (d) => {
        if (!live) return
        setData(d)
        setError(null)
        setLoading(false)
      },
      (e: unknown) => {
        if (!live) return
        setError(e)
        setLoading(false)
      }
    )
    return () => {
      live = false
    }
  }, [key, n])
  const reload = useCallback(() => setN((x) => x + 1), [])
  return { data, error, loading, reload, set: setData }
}

/**
 * A canvas drawn by `draw(ctx, width, height)` in CSS pixels, redrawn when `deps` change or the element
 * resizes. The canvas carries `data-drawn="true"` once drawn with data (the browser test reads pixels too).
 */
export function useCanvas(draw: (ctx: CanvasRenderingContext2D, w: number, h: number) => boolean, deps: unknown[]) {
  const ref = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    const canvas = ref.current
    if (!canvas) return
    const paint = (): void => {
      const w = canvas.clientWidth
      const h = canvas.clientHeight
      const dpr = window.devicePixelRatio || 1
      canvas.width = Math.round(w * dpr)
      canvas.height = Math.round(h * dpr)
      const ctx = canvas.getContext('2d')
      if (!ctx) return
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
      ctx.clearRect(0, 0, w, h)
      canvas.dataset['drawn'] = String(draw(ctx, w, h))
    }
    paint()
    const ro = new ResizeObserver(paint)
    ro.observe(canvas)
    return () => ro.disconnect()
  }, deps)
  return ref
}

/** Colour scale for a signed value in [-1, 1]: red (negative) through grey to green (positive). */
export function divergingColor(t: number): string {
  const c = Math.max(-1, Math.min(1, t))
  const a = Math.abs(c)
  const [r, g, b] = c >= 0 ? [22, 163, 74] : [220, 38, 38]
  const base = 241
  const mix = (x: number): number => Math.round(base + (x - base) * (0.15 + 0.85 * a))
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`
}
