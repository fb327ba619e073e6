/**
 * @module
 * Layout checks of the dashboard's canvas charts in the page (playwright `evaluate`): their axes
 * (`.chart-axis`) and labels (`.chart-label`) are DOM elements over the canvas (web/src/lib/chart.tsx), so
 * the browser's own boxes say whether a label meets an axis, another label, or the frame's edge.
 */
import type { Page } from 'playwright-core'

export interface ChartLayout {
  readonly labels: number
  readonly axes: number
  /** "label 'x' meets axis 2", "label 'x' meets label 'y'", "label 'x' leaves the frame" */
  readonly problems: readonly string[]
}

/** The labels, axes and layout problems of the chart frame under `selector`. */
export async function chartLayout(page: Page, selector: string): Promise<ChartLayout> {
  return page.evaluate((selector) => {
    // runs in the page: DOM globals, untyped here (the tests' tsconfig has no DOM library)
    const doc = (globalThis as any).document
    const frame = doc.querySelector(selector)
    if (!frame) return { labels: 0, axes: 0, problems: [`no ${selector}`] }
    type Box = { left: number; right: number; top: number; bottom: number }
    const box = (e: any): Box => {
      const r = e.getBoundingClientRect()
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }
    }
    // strictly overlapping areas: boxes that only touch along an edge do not meet
    const meet = (a: Box, b: Box): boolean =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
    const labels = [...frame.querySelectorAll('.chart-label')].map((e: any) => ({ text: e.textContent, box: box(e) }))
    const axes = [...frame.querySelectorAll('.chart-axis')].map(box)
    const outer = box(frame)
    const problems: string[] = []
    labels.forEach((l, i) => {
      axes.forEach((a, j) => {
        if (meet(l.box, a)) problems.push(`label '${l.text}' meets axis ${j}`)
      })
      for (const m of labels.slice(i + 1))
        if (meet(l.box, m.box)) problems.push(`label '${l.text}' meets label '${m.text}'`)
      if (
        l.box.left < outer.left ||
        l.box.right > outer.right ||
        l.box.top < outer.top ||
        l.box.bottom > outer.bottom
      ) {
        problems.push(`label '${l.text}' leaves the frame`)
      }
    })
    return { labels: labels.length, axes: axes.length, problems }
  }, selector)
}
