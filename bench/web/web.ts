/**
 * @module
 * `npm run bench -- web`: the dashboard's first load and its static serving, each against a reference
 * measured in the same run, alternating rounds (docs/dashboard.md "Figures").
 *
 * - Cold start: a fresh headless Chromium process (Debian's `chromium`, playwright-core) per round, from
 *   launch to the app's `tw:interactive` mark on /signup (target 1.5 s), against launch to a loaded static
 *   file of the same server (/favicon.svg: what any page of the site pays for the browser's own start). Also the mark's time after navigation
 *   start (Performance API) and the JavaScript: the entry chunk (first load) and every chunk together
 *   (gzip bytes per dist/web/build-report.json; target 200 KB).
 * - Static serving: requests/s of the entry JavaScript chunk (brotli, ~15 KB) vs GET /v1/health on the
 *   same server, 64 connections, load from its own process (bench/http/load.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { projectRoot } from '../../engine/paths.js'
import { startBenchServer } from '../http/bench-server.js'
import { load, loadTool } from '../http/load.js'
import { median } from '../stats.js'
import { freePort } from '../free-port.js'

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
/** Browser launches per variant: launches vary more than HTTP rounds, so at least five. */
const MIN_LAUNCHES = 5

/**
 * One cold launch: ms from launch to the dashboard's `tw:interactive` mark (`dashboard`), or to the load
 * event of a static file of the same server (the reference: the browser's start, a renderer for the site
 * and one HTTP answer), and the page's own measure (ms after navigation start).
 */
async function coldLaunch(
  url: string,
  dashboard: boolean
): Promise<{ wall_ms: number; after_navigation_ms: number | null }> {
  const started = performance.now()
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true })
  try {
    const page = await browser.newPage()
    if (!dashboard) {
      await page.goto(url)
      return { wall_ms: performance.now() - started, after_navigation_ms: null }
    }
    await page.goto(url)
    await page.waitForFunction(() => performance.getEntriesByName('tw:interactive').length > 0)
    const wall = performance.now() - started
    const mark = await page.evaluate(() => performance.getEntriesByName('tw:interactive')[0]!.startTime)
    return { wall_ms: wall, after_navigation_ms: mark }
  } finally {
    await browser.close()
  }
}

const round1 = (x: number): number => Math.round(x * 10) / 10

export async function webBench(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`)
  const report = JSON.parse(
    fs.readFileSync(path.join(projectRoot(), 'dist', 'web', 'build-report.json'), 'utf8')
  ) as Record<string, { bytes: number; gzip: number; brotli: number }>
  const scripts = Object.entries(report).filter(([f]) => f.endsWith('.js'))
  // the entry chunk: the one script index.html loads (the chart pages add their chunks on first use)
  const indexHtml = fs.readFileSync(path.join(projectRoot(), 'dist', 'web', 'index.html'), 'utf8')
  const entry = /<script[^>]*src="\/([^"]+\.js)"/.exec(indexHtml)![1]!
  const server = await startBenchServer(
    await freePort(),
    { SOURCES: 'sim', SIM_BACKFILL_DAYS: '1' },
    (h) => (h as unknown as { ready: boolean }).ready
  )
  try {
    const blank: number[] = []
    const dashboard: number[] = []
    const afterNavigation: number[] = []
    for (let i = 0; i < Math.max(MIN_LAUNCHES, rounds); i++) {
      blank.push((await coldLaunch(`${server.base}/favicon.svg`, false)).wall_ms)
      const d = await coldLaunch(`${server.base}/signup`, true)
      dashboard.push(d.wall_ms)
      afterNavigation.push(d.after_navigation_ms!)
    }
    const bundle = entry
    const asset: number[] = []
    const health: number[] = []
    for (let i = 0; i < rounds; i++) {
      asset.push((await load(`${server.base}/${bundle}`, 64, seconds, { 'accept-encoding': 'gzip, br' })).req_per_s)
      health.push((await load(`${server.base}/v1/health`, 64, seconds)).req_per_s)
    }
    return {
      load_tool: loadTool(),
      first_load_js: {
        entry,
        entry_gzip_bytes: report[entry]!.gzip,
        entry_brotli_bytes: report[entry]!.brotli,
        files: scripts.map(([f]) => f),
        raw_bytes: scripts.reduce((s, [, r]) => s + r.bytes, 0),
        gzip_bytes: scripts.reduce((s, [, r]) => s + r.gzip, 0),
        brotli_bytes: scripts.reduce((s, [, r]) => s + r.brotli, 0),
        target_gzip_bytes: 200 * 1024
      },
      cold_start: {
        launches: dashboard.length,
        launch_to_interactive_ms: dashboard.map(round1),
        launch_to_static_file_ms: blank.map(round1),
        median_launch_to_interactive_ms: round1(median(dashboard)),
        median_launch_to_static_file_ms: round1(median(blank)),
        median_dashboard_over_static_file_ms: round1(median(dashboard) - median(blank)),
        median_interactive_after_navigation_ms: round1(median(afterNavigation)),
        target_ms: 1500
      },
      static_serving: {
        asset_req_per_s: asset,
        health_req_per_s: health,
        median_asset_req_per_s: median(asset),
        median_health_req_per_s: median(health),
        asset_vs_health: Math.round((median(asset) / median(health)) * 100) / 100
      }
    }
  } finally {
    await server.stop()
  }
}
