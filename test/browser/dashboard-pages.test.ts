/**
 * The dashboard's pages end to end in headless Chromium over the built server with the demo market
 * (test/helpers/dashboard-browser.ts). A signed-out visitor's first page explains Tidewatch and the owner rule
 * and shows the public pages' data, with no refusal on screen, no refused call but the session probe and no
 * push-stream socket (on the desktop and on a 390x844 phone screen). Signed in as the owner: every market
 * view's canvases have drawn data (their pixels read, not just elements) and the boxes of the charts' labels
 * and axes show no label meeting an axis or another label; the Confirm page shows its history and
 * evaluation; the candles' symbol box and timeframe choose what is drawn; the screener sorts and filters (the
 * funding interval beside the annualised rate). No CSP violation may be reported on any page. The account
 * pages, and every page on the phone screen signed in, are dashboard-account.test.ts's.
 *
 * Measured and written to test-artifacts/dashboard/metrics.json (reported, never asserted as timings): the
 * JavaScript bytes of the first load (as transferred, and gzip per dist/web/build-report.json; and of every
 * chunk, the most a chart page loads), the time
 * from navigation start to the app's `tw:interactive` mark, and from a cold browser launch to that mark.
 * A screenshot of every page goes to test-artifacts/dashboard/<page>-1280.png (1280x800) and
 * <page>-390.png (390x844), to be looked at.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { projectRoot } from '../../engine/paths.js'
import { ARTIFACTS, DESKTOP, PHONE, useDashboardBrowser } from '../helpers/dashboard-browser.js'
import type { Spawned } from '../helpers/spawn-server.js'
import { colouredPixels } from './pixels.js'
import {
  errorLines,
  expectChartDrawn,
  expectNoSidewaysScroll,
  expectTidyChart,
  MIN_DATA_PIXELS,
  OWNER,
  POLL,
  shot,
  submitCredentials
} from './page-checks.js'

/** Budget of first-load JavaScript, gzip bytes (docs/dashboard.md). */
const JS_BUDGET_GZIP = 200 * 1024

const metrics: Record<string, unknown> = {}

describe('dashboard pages in headless Chromium', () => {
  const dash = useDashboardBrowser()
  const { cspViolations, watch } = dash
  let server: Spawned
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    server = dash.server
    browser = dash.browser
    page = dash.page
    const wall = dash.launchToInteractiveMs
    const perf = await page.evaluate(() => {
      // in the page; resource entries typed loosely (the tests' tsconfig has no DOM library)
      const mark = performance.getEntriesByName('tw:interactive')[0]!
      const scripts = (performance.getEntriesByType('resource') as any[])
        .filter((r) => r.initiatorType === 'script' || String(r.name).endsWith('.js'))
        .map((r) => ({
          name: new URL(r.name).pathname,
          transfer: r.transferSize as number,
          encoded: r.encodedBodySize as number,
          decoded: r.decodedBodySize as number
        }))
      return { interactive_ms: mark.startTime, scripts }
    })
    const report = JSON.parse(
      fs.readFileSync(path.join(projectRoot(), 'dist', 'web', 'build-report.json'), 'utf8')
    ) as Record<string, { bytes: number; gzip: number; brotli: number }>
    const gzip = perf.scripts.reduce((s, x) => s + (report[x.name.slice(1)]?.gzip ?? 0), 0)
    const allJs = Object.entries(report).filter(([f]) => f.endsWith('.js'))
    Object.assign(metrics, {
      // every chunk of the build: the most any page loads (the chart pages add lightweight-charts)
      all_js_files: allJs.map(([f]) => f),
      all_js_gzip_bytes: allJs.reduce((s, [, r]) => s + r.gzip, 0),
      first_load_scripts: perf.scripts,
      first_load_js_encoded_bytes: perf.scripts.reduce((s, x) => s + x.encoded, 0),
      first_load_js_gzip_bytes: gzip,
      first_load_js_raw_bytes: perf.scripts.reduce((s, x) => s + x.decoded, 0),
      interactive_after_navigation_ms: Math.round(perf.interactive_ms),
      interactive_after_cold_browser_launch_ms: Math.round(wall)
    })
    console.log('dashboard first load:', JSON.stringify(metrics))
  })

  afterAll(() => {
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    fs.writeFileSync(path.join(ARTIFACTS, 'metrics.json'), JSON.stringify(metrics, null, 2))
  })

  it('stays within the JavaScript budget: the first load, and every chunk of the build together', () => {
    expect(metrics['first_load_js_gzip_bytes']).toBeGreaterThan(0)
    expect(metrics['first_load_js_gzip_bytes'] as number).toBeLessThanOrEqual(JS_BUDGET_GZIP)
    expect(metrics['all_js_gzip_bytes'] as number).toBeLessThanOrEqual(JS_BUDGET_GZIP)
  })

  for (const viewport of [DESKTOP, PHONE]) {
    it(`a signed-out visitor (${viewport.width}x${viewport.height}) is told what Tidewatch is and sees the public data, never a refusal`, async () => {
      const visitor = await browser.newContext({ viewport })
      const p = await visitor.newPage()
      watch(p)
      const refused: string[] = []
      p.on('response', (r) => {
        // the session probe at start (GET /v1/account) is how the app learns it is signed out
        if (r.status() === 401 && new URL(r.url()).pathname !== '/v1/account') refused.push(r.url())
      })
      const sockets: string[] = []
      p.on('websocket', (ws) => sockets.push(ws.url()))

      await p.goto(`${server.base}/`)
      const welcome = p.locator('[data-testid=welcome]')
      await welcome.waitFor()
      expect(await welcome.textContent()).toContain(
        'Tidewatch gathers crypto derivatives, options and on-chain whale data'
      )
      expect(await p.textContent('[data-testid=owner-note]')).toContain(
        'The first account created on this server becomes its owner'
      )
      // the public pages' data, read without an account
      await expect.poll(() => p.textContent('[data-testid=public-options]'), POLL).toMatch(/Underlying \$[\d.]+k/)
      await expect.poll(() => p.textContent('[data-testid=public-whales]'), POLL).toMatch(/Volume \$[\d.]+[kMB]/)
      await expect.poll(() => p.textContent('.page-head'), POLL).toContain('Demo data (synthetic)')
      // the plans: what an account on each adds (the screener from trader, webhooks from pro)
      const plans = p.locator('[data-testid=plan-table]')
      expect(await plans.locator('tr', { hasText: 'trader' }).textContent()).toContain('the derivatives screener')
      expect(await plans.locator('tr', { hasText: 'pro' }).textContent()).toContain('signed webhooks')
      // the navigation links only what a visitor can open
      const nav = (await p.locator('nav a').allTextContents()).map((t) => t.trim())
      expect(nav).toEqual(['Tidewatch', 'Options', 'Whales', 'Log in', 'Sign up'])
      expect(await errorLines(p)).toEqual([])
      await expectNoSidewaysScroll(p, 'the welcome page')
      await shot(p, 'welcome')

      for (const [name, chart] of [
        ['options', '[data-testid=options-canvas]'],
        ['whales', '[data-testid=whales-canvas]']
      ] as const) {
        await p.click(`nav >> text=${name === 'options' ? 'Options' : 'Whales'}`)
        await expectChartDrawn(p, chart)
        await expectTidyChart(p, chart)
        expect(await errorLines(p)).toEqual([])
        await expectNoSidewaysScroll(p, name)
        await shot(p, `${name}-signed-out`)
      }
      // a page that needs an account says so (and how accounts start) instead of calling the API
      for (const url of ['/screener', '/candles?symbol=BTC', '/keys']) {
        await p.goto(`${server.base}${url}`)
        const note = p.locator('[data-testid=not-included]')
        await note.waitFor()
        expect(await note.textContent()).toContain('needs an account')
        expect(await note.textContent()).toContain('the first account on this server becomes its owner')
        expect(await errorLines(p)).toEqual([])
      }
      await shot(p, 'screener-signed-out')
      await p.goto(`${server.base}/signup`)
      await p.locator('input[name=email]').waitFor()
      await shot(p, 'signup')
      expect(refused).toEqual([])
      // the push stream is not in a visitor's reach: no socket is opened for a refusal
      expect(sockets).toEqual([])
      await visitor.close()
    }, 120_000)
  }

  describe('signed in as the owner', () => {
    beforeAll(async () => {
      await submitCredentials(page, OWNER, 'Create account')
    }, 120_000)

    const views: [string, string, string][] = [
      ['candles', '/candles?symbol=BTC&timeframe=1h', '[data-testid=candles-chart]'],
      ['options', '/options', '[data-testid=options-canvas]'],
      ['funding', '/funding?symbol=BTC', '[data-testid=funding-canvas]'],
      ['whales', '/whales', '[data-testid=whales-canvas]'],
      ['confirm', '/confirm?symbol=ETH&direction=short', '[data-testid=confirm-canvas]']
    ]
    for (const [name, url, chart] of views) {
      it(`${name}: the chart has drawn data (pixels), tidy labels, and the demo data is labelled`, async () => {
        await page.goto(`${server.base}${url}`)
        await expectChartDrawn(page, chart)
        // the label renders from its own request: waited for like the chart, not read once
        await expect.poll(() => page.textContent('.page-head'), POLL).toContain('Demo data (synthetic)')
        // the charts drawn on a canvas lay out their labels and axes as elements: their boxes must not meet
        // (the candles are lightweight-charts', which lays out its own scales)
        if (name !== 'candles') await expectTidyChart(page, chart)
        await expectNoSidewaysScroll(page, name)
        await shot(page, name)
      }, 120_000)
    }

    it('confirm: the past days of answers as they were then and their evaluation beside the live answer', async () => {
      await page.goto(`${server.base}/confirm?symbol=BTC&direction=long`)
      const history = page.locator('[data-testid=confirm-history] tbody tr')
      await expect.poll(() => history.count(), POLL).toBe(12)
      const steps = Number(/\((\d+) steps\)/.exec((await page.textContent('h2:has-text("History")')) ?? '')?.[1])
      expect(steps).toBe(3 * 24) // an answer at every whole hour of three days (before the demo's data: SKIP)
      for (const action of await history.locator('td:nth-child(2)').allTextContents()) {
        expect(['CONFIRM', 'REDUCE', 'SKIP']).toContain(action)
      }
      // the always-confirm baseline covers every step; its 1h returns come from the demo's stored candles
      const baseline = page.locator('[data-testid=confirm-evaluation] tr', { hasText: 'always (baseline)' })
      await expect.poll(() => baseline.count(), POLL).toBe(1)
      expect(await baseline.locator('td:nth-child(2)').textContent()).toBe(String(steps))
      expect(await baseline.locator('td:nth-child(3)').textContent()).toMatch(/^-?\d[\d,.]*% · \d[\d,.]*% · /)
      await shot(page, 'confirm-history')
    }, 120_000)

    it('candles: the symbol box and the timeframe choose what is drawn', async () => {
      await page.goto(`${server.base}/candles?symbol=BTC&timeframe=1h`)
      const meta = page.locator('p.muted').first()
      await expect.poll(() => meta.textContent(), POLL).toContain('BTCUSDT')
      await page.fill('input[aria-label=Symbol]', 'eth')
      await page.selectOption('select[aria-label=Timeframe]', '15m')
      await page.click('button:has-text("Show")')
      await expect.poll(() => meta.textContent(), POLL).toMatch(/ETHUSDT on \w+, \d+ candles of 15m/)
      await expect
        .poll(() => colouredPixels(page, '[data-testid=candles-chart]'), POLL)
        .toBeGreaterThan(MIN_DATA_PIXELS)
    }, 120_000)

    it('screener: rows, sorting by a column, filtering by symbol and venue, live stream connected', async () => {
      await page.goto(`${server.base}/screener`)
      const table = page.locator('[data-testid=screener-table]')
      await expect.poll(() => table.locator('tbody tr').count(), POLL).toBeGreaterThan(10)
      // the funding interval (hours) between the rate per interval and the annualised rate
      const heads = (await table.locator('thead th').allTextContents()).map((t) => t.replace(/[▲▼]/g, '').trim())
      expect(heads.slice(6, 9)).toEqual(['Funding', 'Interval', 'Funding (yr)'])
      const intervals = await table.locator('tbody tr td:nth-child(8)').allTextContents()
      expect(intervals.filter((t) => /^\d+(\.\d+)? h$/.test(t)).length).toBeGreaterThan(0)
      expect(await page.textContent('.page-head')).toContain('Demo data (synthetic)')
      const funding = async (): Promise<number[]> =>
        (await table.locator('tbody tr td:nth-child(7)').allTextContents()).map((t) => Number(t.replace('%', '')))
      await table.locator('th:has-text("Funding")').first().click() // numeric columns sort descending first
      let values = (await funding()).filter(Number.isFinite)
      expect(values).toEqual([...values].sort((a, b) => b - a))
      await table.locator('th:has-text("Funding")').first().click()
      values = (await funding()).filter(Number.isFinite)
      expect(values).toEqual([...values].sort((a, b) => a - b))
      await page.fill('input[aria-label=Filter]', 'BTC')
      await page.selectOption('select[aria-label=Venue]', 'okx')
      const markets = await table.locator('tbody tr td:nth-child(1)').allTextContents()
      expect(markets.length).toBeGreaterThan(0)
      for (const m of markets) expect(m).toContain('BTC')
      expect(await table.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(markets.map(() => 'okx'))
      // the session authenticated the push stream's upgrade
      await page.locator('nav .dot.live').waitFor({ timeout: 15_000 })
      await shot(page, 'screener')
    }, 120_000)
  })

  it('reported no Content-Security-Policy violation on any page', () => {
    expect(cspViolations).toEqual([])
  })
})
