/**
 * @module
 * What the dashboard browser tests (test/browser/dashboard-*.test.ts) check on a page and do on it: a chart
 * has drawn its data, its labels are tidy, the page never scrolls sideways, the error lines shown, a
 * screenshot of the page, and the sign-up/login form. The accounts they sign up with.
 */
import path from 'node:path'
import { expect } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS } from '../helpers/dashboard-browser.js'
import { chartLayout } from './chart-boxes.js'
import { colouredPixels } from './pixels.js'

export const OWNER = { email: 'owner@example.com', password: 'correct horse battery' }
export const MEMBER = { email: 'member@example.com', password: 'another long secret' }
/** Saturated pixels a chart with data has at least (an empty chart has none; a real one has thousands). */
export const MIN_DATA_PIXELS = 200
export const CONFIRM_CANVAS = '[data-testid=confirm-canvas]'

/**
 * expect.poll waits 1 s by default; password hashing (scrypt) and a loaded machine need longer: at load
 * average 25-50 (the suite beside other work) a page's first answer took over 20 s
 */
export const POLL = { timeout: 45_000 }

/**
 * The chart under `selector` has drawn its data. The confirm bars are coloured by their score and fade to
 * the track's grey near 0 (web/src/lib/ui.tsx `divergingColor`), so an answer whose scores are all small
 * has no saturated pixel: the confirm chart shows its answer by its labels (drawn only with an answer);
 * every other chart by its saturated pixels.
 */
export async function expectChartDrawn(page: Page, selector: string): Promise<void> {
  if (selector === CONFIRM_CANVAS)
    await expect.poll(async () => (await chartLayout(page, selector)).labels, POLL).toBeGreaterThan(2)
  else await expect.poll(() => colouredPixels(page, selector), POLL).toBeGreaterThan(MIN_DATA_PIXELS)
}

/** A full-page screenshot, named by the page and the viewport's width. */
export async function shot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true })
}

/** The chart under `selector` has labels and axes, and no label meets an axis, a label or the frame's edge. */
export async function expectTidyChart(page: Page, selector: string): Promise<void> {
  await expect.poll(async () => (await chartLayout(page, selector)).labels, POLL).toBeGreaterThan(2)
  const layout = await chartLayout(page, selector)
  expect(layout.axes).toBeGreaterThan(0)
  expect(layout.problems).toEqual([])
}

/** The page is no wider than its viewport: wide tables scroll inside themselves, the page never sideways. */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)
  expect(width, `${name} is ${width} px wide`).toBeLessThanOrEqual(page.viewportSize()!.width)
}

/** The texts of the page's error lines (the API's refusals as shown). */
export const errorLines = (page: Page): Promise<string[]> => page.locator('.error').allTextContents()

/** Fills the sign-up or login form and submits it; the app then shows API access. */
export async function submitCredentials(
  page: Page,
  who: { email: string; password: string },
  button: string
): Promise<void> {
  await page.fill('input[name=email]', who.email)
  await page.fill('input[name=password]', who.password)
  await page.click(`button:has-text("${button}")`)
  await page.waitForURL('**/keys')
}
