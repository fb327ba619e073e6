/**
 * @module
 * Pixel reads of the dashboard's canvases in the page (playwright `evaluate`): how many pixels are
 * strongly coloured (the chart's data: bars, candles, heatmap cells), as opposed to the background, grid
 * lines and grey text. A chart with no data draws none.
 */
import type { Page } from 'playwright-core'

/** Saturation threshold: max - min channel above this is a data colour (grey text and grid lines are below). */
const SATURATED = 60

/** Saturated, opaque pixels over every canvas under `selector`. */
export async function colouredPixels(page: Page, selector: string): Promise<number> {
  return page.evaluate(
    ({ selector, saturated }) => {
      // runs in the page: DOM globals, untyped here (the tests' tsconfig has no DOM library)
      const doc = (globalThis as any).document
      const root = doc.querySelector(selector)
      if (!root) return -1
      const canvases: any[] = root.tagName === 'CANVAS' ? [root] : [...root.querySelectorAll('canvas')]
      let n = 0
      for (const c of canvases) {
        if (c.width === 0 || c.height === 0) continue
        const ctx = c.getContext('2d')
        if (!ctx) continue
        const d: Uint8ClampedArray = ctx.getImageData(0, 0, c.width, c.height).data
        for (let i = 0; i < d.length; i += 4) {
          const r = d[i]!
          const g = d[i + 1]!
          const b = d[i + 2]!
          if (d[i + 3]! > 128 && Math.max(r, g, b) - Math.min(r, g, b) > saturated) n++
        }
      }
      return n
    },
    { selector, saturated: SATURATED }
  )
}
