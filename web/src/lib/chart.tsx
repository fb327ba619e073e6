/**
 * @module
 * A canvas chart with its axes and labels as DOM elements over it: the data (bars, cells) is drawn on the
 * canvas, the axis lines and text are positioned elements, so their boxes are the browser's own layout
 * (the browser test checks that no label box meets an axis or another label). The draw function returns
 * the overlay in CSS pixels of the canvas box; `textWidth` measures with the labels' font so a draw can
 * make room for its longest label.
 */
import { useState } from 'preact/hooks'
import { useCanvas } from './ui.js'

/** The labels' font: the same in the CSS (.chart-label) and in `textWidth`. */
export const LABEL_FONT = '11px system-ui, sans-serif'
/** Line height of a label, CSS pixels (.chart-label); label rows closer than this would overlap. */
export const LABEL_HEIGHT = 13

export interface ChartLabel {
  readonly text: string
  /** anchor point, CSS pixels from the canvas box's top left */
  readonly x: number
  readonly y: number
  /** which side of the text sits on x: start (text to the right), end (text to the left), middle */
  readonly align?: 'start' | 'end' | 'middle'
  /** which side of the text sits on y */
  readonly valign?: 'top' | 'middle' | 'bottom'
  readonly color?: string
}

/** An axis: a horizontal or vertical line, CSS pixels. */
export interface ChartAxis {
  readonly x1: number
  readonly y1: number
  readonly x2: number
  readonly y2: number
}

export interface Overlay {
  readonly axes: readonly ChartAxis[]
  readonly labels: readonly ChartLabel[]
}

/** Width of `text` in the labels' font, CSS pixels. */
export function textWidth(ctx: CanvasRenderingContext2D, text: string): number {
  ctx.font = LABEL_FONT
  return ctx.measureText(text).width
}

const SHIFT_X = { start: '0', middle: '-50%', end: '-100%' } as const
const SHIFT_Y = { top: '0', middle: '-50%', bottom: '-100%' } as const

/**
 * The chart: `draw` paints the data on the canvas and returns the overlay, or null with nothing to draw.
 * Redrawn when `deps` change or the box resizes. `testid` names the frame (its canvas is inside).
 */
export function Chart(props: {
  testid: string
  short?: boolean
  draw: (ctx: CanvasRenderingContext2D, w: number, h: number) => Overlay | null
  deps: unknown[]
}) {
  const [overlay, setOverlay] = useState<Overlay | null>(null)
  const ref = useCanvas((ctx, w, h) => {
    const o = props.draw(ctx, w, h)
    setOverlay(o)
    return o !== null
  }, props.deps)
  return (
    <div class={`plot-frame${props.short ? ' short' : ''}`} data-testid={props.testid}>
      <canvas ref={ref} />
      {overlay?.axes.map((a, i) => (
        <div
          key={`a${i}`}
          class="chart-axis"
          style={{
            left: `${Math.min(a.x1, a.x2)}px`,
            top: `${Math.min(a.y1, a.y2)}px`,
            width: `${Math.max(1, Math.abs(a.x2 - a.x1))}px`,
            height: `${Math.max(1, Math.abs(a.y2 - a.y1))}px`
          }}
        />
      ))}
      {overlay?.labels.map((l, i) => (
        <span
          key={`l${i}`}
          class="chart-label"
          style={{
            left: `${l.x}px`,
            top: `${l.y}px`,
            transform: `translate(${SHIFT_X[l.align ?? 'start']}, ${SHIFT_Y[l.valign ?? 'top']})`,
            ...(l.color ? { color: l.color } : {})
          }}
        >
          {l.text}
        </span>
      ))}
    </div>
  )
}

/**
 * Labels along a horizontal axis from x0 to x1 (text below y) for a linear scale: `text(t)` labels the point
 * at fraction t (0 at x0, 1 at x1). The first label starts at x0, the last ends at x1, the others are
 * centred on their point; as many as fit with `gap` pixels between neighbours (at least the two ends).
 */
export function xTicks(
  ctx: CanvasRenderingContext2D,
  x0: number,
  x1: number,
  y: number,
  text: (t: number) => string,
  gap = 16
): ChartLabel[] {
  const widest = Math.max(textWidth(ctx, text(0)), textWidth(ctx, text(0.5)), textWidth(ctx, text(1)))
  // an end label reaches a whole width inwards, a centred one half: neighbours 1.5 widths + gap apart
  const n = Math.max(2, Math.min(7, Math.floor((x1 - x0) / (1.5 * widest + gap)) + 1))
  return Array.from({ length: n }, (_, i) => {
    const t = i / (n - 1)
    return {
      text: text(t),
      x: x0 + t * (x1 - x0),
      y,
      align: i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle',
      valign: 'top'
    }
  })
}
