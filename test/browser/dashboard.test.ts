/**
 * The dashboard end to end in headless Chromium (Debian's `chromium`, driven by playwright-core) over the
 * built server as a user runs it (dist/server/main.js: real chDB, the demo market with a one-day backfill)
 * and a local HTTPS webhook receiver trusted through NODE_EXTRA_CA_CERTS (WEBHOOK_ALLOW_PRIVATE lets the
 * server reach 127.0.0.1). Steps, each through the UI: a signed-out visitor's first page explains Tidewatch
 * and the owner rule and shows the public pages' data, with no refusal on screen, no refused call but the
 * session probe and no push-stream socket; sign up the owner; make an invite link and sign up a
 * second account with it in another browser context, set its plan; log out and log in; change the
 * password (the old one is refused, the new one logs in); the free member's navigation leaves out what its
 * plan cannot open (Screener, Webhooks), which explains itself when opened, and its dashboard key has no
 * Revoke button; create an API key (secret shown once), make its
 * TradingView alert message; call /v1/confirm with the key from the test and see the usage count move;
 * register a webhook against the receiver, send a test and see it delivered in the log (and signed, at
 * the receiver), fail one and redeliver it, disable/enable and edit the webhook; revoke a key (its calls
 * get 401 at once); open every market view and read the canvases' pixels (data drawn,
 * not just elements) and the boxes of the charts' labels and axes (no label meets an axis or another label),
 * sort and filter the screener (the funding interval beside the annualised rate); every page again on a
 * 390x844 phone screen (no sideways scrolling of the page, charts laid out as on the desktop). No CSP
 * violation may be reported on any page. The Confirm page shows its history and evaluation.
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
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'
import { chartLayout } from './chart-boxes.js'
import { colouredPixels } from './pixels.js'

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
const ARTIFACTS = path.join(projectRoot(), 'test-artifacts', 'dashboard')
const OWNER = { email: 'owner@example.com', password: 'correct horse battery' }
const MEMBER = { email: 'member@example.com', password: 'another long secret' }
const NEW_OWNER_PASSWORD = 'a brand new password'
const WEBHOOK_SECRET = 'receiver-secret-0123456789'
/** Budget of first-load JavaScript, gzip bytes (docs/dashboard.md). */
const JS_BUDGET_GZIP = 200 * 1024
/** Saturated pixels a chart with data has at least (an empty chart has none; a real one has thousands). */
const MIN_DATA_PIXELS = 200

/**
 * expect.poll waits 1 s by default; password hashing (scrypt) and a loaded machine need longer: at load
 * average 25-50 (the suite beside other work) a page's first answer took over 20 s
 */
const POLL = { timeout: 45_000 }

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

const metrics: Record<string, unknown> = {}

const CONFIRM_CANVAS = '[data-testid=confirm-canvas]'

/**
 * The chart under `selector` has drawn its data. The confirm bars are coloured by their score and fade to
 * the track's grey near 0 (web/src/lib/ui.tsx `divergingColor`), so an answer whose scores are all small
 * has no saturated pixel: the confirm chart shows its answer by its labels (drawn only with an answer);
 * every other chart by its saturated pixels.
 */
async function expectChartDrawn(page: Page, selector: string): Promise<void> {
  if (selector === CONFIRM_CANVAS)
    await expect.poll(async () => (await chartLayout(page, selector)).labels, POLL).toBeGreaterThan(2)
  else await expect.poll(() => colouredPixels(page, selector), POLL).toBeGreaterThan(MIN_DATA_PIXELS)
}

/** A full-page screenshot, named by the page and the viewport's width. */
async function shot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true })
}

/** The chart under `selector` has labels and axes, and no label meets an axis, a label or the frame's edge. */
async function expectTidyChart(page: Page, selector: string): Promise<void> {
  await expect.poll(async () => (await chartLayout(page, selector)).labels, POLL).toBeGreaterThan(2)
  const layout = await chartLayout(page, selector)
  expect(layout.axes).toBeGreaterThan(0)
  expect(layout.problems).toEqual([])
}

/** The page is no wider than its viewport: wide tables scroll inside themselves, the page never sideways. */
async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)
  expect(width, `${name} is ${width} px wide`).toBeLessThanOrEqual(page.viewportSize()!.width)
}

/** The texts of the page's error lines (the API's refusals as shown). */
const errorLines = (page: Page): Promise<string[]> => page.locator('.error').allTextContents()

/** Fills the sign-up or login form and submits it; the app then shows API access. */
async function submitCredentials(page: Page, who: { email: string; password: string }, button: string): Promise<void> {
  await page.fill('input[name=email]', who.email)
  await page.fill('input[name=password]', who.password)
  await page.click(`button:has-text("${button}")`)
  await page.waitForURL('**/keys')
}

describe('dashboard in headless Chromium', () => {
  const data = tmpDir('tw-browser-')
  let ca: TestCa
  let receiver: WebhookReceiver
  let hookUrl: string
  let server: Spawned
  let browser: Browser
  let owner: BrowserContext
  let page: Page
  const cspViolations: string[] = []

  const watch = (p: Page): void => {
    p.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text())
    })
  }

  beforeAll(async () => {
    expect(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`).toBe(true)
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    ca = makeTestCa()
    receiver = new WebhookReceiver(ca, WEBHOOK_SECRET)
    hookUrl = await receiver.start()
    server = spawnServer(
      {
        DATA_DIR: data.dir,
        SOURCES: 'sim',
        SIM_BACKFILL_DAYS: '1',
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
        NODE_EXTRA_CA_CERTS: ca.caFile,
        ADMIN_TOKEN: 'browser-test-admin-token-0123456789'
      },
      await freePort()
    )
    await waitForHealth(server, (b) => b['ready'] === true, 120_000)
    // cold start: the browser process is launched here, and the first page is measured from this instant
    const launched = performance.now()
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true })
    owner = await browser.newContext({ viewport: DESKTOP })
    page = await owner.newPage()
    watch(page)
    await page.goto(`${server.base}/signup`)
    await page.waitForFunction(() => performance.getEntriesByName('tw:interactive').length > 0)
    const wall = performance.now() - launched
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
  }, 240_000)

  afterAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    fs.writeFileSync(path.join(ARTIFACTS, 'metrics.json'), JSON.stringify(metrics, null, 2))
    await browser?.close()
    if (server) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    await receiver?.stop()
    ca?.cleanup()
    data.cleanup()
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

  it('signs up the owner, invites a second account, logs out and in again', async () => {
    await shot(page, 'signup')
    await submitCredentials(page, OWNER, 'Create account')
    await page.click('nav >> text=Account')
    await page.click('button:has-text("Create invite link")')
    const invite = await page.inputValue('[data-testid=invite-url]')
    expect(invite).toMatch(/\/signup\?invite=/)
    await shot(page, 'account-owner')

    const other = await browser.newContext({ viewport: DESKTOP })
    const p2 = await other.newPage()
    watch(p2)
    await p2.goto(invite)
    await expect.poll(() => p2.textContent('main'), POLL).toContain('You were invited')
    await shot(p2, 'signup-invited')
    const memberSockets: string[] = []
    p2.on('websocket', (ws) => memberSockets.push(ws.url()))
    await submitCredentials(p2, MEMBER, 'Create account')
    expect(await p2.textContent('nav')).toContain(MEMBER.email)
    // the free plan: the navigation leaves out the Screener and Webhooks, and the plan badge says why
    expect(await p2.textContent('[data-testid=plan-badge]')).toBe('free')
    expect(await p2.getAttribute('[data-testid=plan-badge]', 'title')).toBe(
      'Not in the free plan: Screener (trader plan), Webhooks (pro plan)'
    )
    const memberNav = (await p2.locator('nav a').allTextContents()).map((t) => t.trim())
    expect(memberNav).toEqual([
      'Tidewatch',
      'Candles',
      'Options',
      'Funding',
      'Whales',
      'Confirm',
      'API access',
      'Usage',
      'Account'
    ])
    // its only key is the dashboard key, which cannot be revoked: no Revoke button
    await expect.poll(() => p2.textContent('[data-testid=keys-table]'), POLL).toContain('dashboard key')
    expect(await p2.locator('[data-testid=keys-table] button:has-text("Revoke")').count()).toBe(0)
    await shot(p2, 'api-access-free')
    // opened anyway, the screener explains which plan has it rather than showing a refusal
    await p2.goto(`${server.base}/screener`)
    const note = p2.locator('[data-testid=not-included]')
    await note.waitFor()
    expect(await note.textContent()).toContain('is not in the free plan: it needs the trader plan or higher')
    expect(await errorLines(p2)).toEqual([])
    await shot(p2, 'screener-free')
    // the confirm view works on the free plan, without a push stream
    await p2.goto(`${server.base}/confirm?symbol=BTC&direction=long`)
    await expectChartDrawn(p2, CONFIRM_CANVAS)
    expect(await errorLines(p2)).toEqual([])
    expect(memberSockets).toEqual([])
    await expect.poll(() => p2.getAttribute('nav .dot', 'title'), POLL).toContain('not in this plan')
    await p2.click('nav >> text=Account')
    await expect.poll(() => p2.textContent('main'), POLL).toContain('member')
    await shot(p2, 'account-member')
    await other.close()

    // the owner's account page lists both accounts and sets the member's plan
    await page.reload()
    await expect.poll(() => page.textContent('main'), POLL).toContain(MEMBER.email)
    const [patched] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/v1/account/accounts/')),
      page.selectOption(`select[aria-label="Plan of ${MEMBER.email}"]`, 'trader')
    ])
    expect(patched.status()).toBe(200)
    await page.reload()
    await expect.poll(() => page.inputValue(`select[aria-label="Plan of ${MEMBER.email}"]`), POLL).toBe('trader')
    await page.click('button:has-text("Log out")')
    await page.waitForURL('**/login')
    await shot(page, 'login')
    await submitCredentials(page, OWNER, 'Log in')
    expect(await page.textContent('nav')).toContain(OWNER.email)

    // password change from the account page; the new password logs in, the old one no longer does
    await page.click('nav >> text=Account')
    await page.fill('input[autocomplete=current-password]', OWNER.password)
    await page.fill('input[autocomplete=new-password]', NEW_OWNER_PASSWORD)
    await page.click('button:has-text("Change password")')
    await expect.poll(() => page.textContent('main'), POLL).toContain('Password changed')
    await page.click('button:has-text("Log out")')
    await page.waitForURL('**/login')
    await page.fill('input[name=email]', OWNER.email)
    await page.fill('input[name=password]', OWNER.password)
    await page.click('button:has-text("Log in")')
    await expect.poll(() => page.textContent('main'), POLL).toContain('invalid_credentials')
    await submitCredentials(page, { email: OWNER.email, password: NEW_OWNER_PASSWORD }, 'Log in')
  }, 120_000)

  it('creates a key, makes its alert message, and the usage count moves when the key calls /v1/confirm', async () => {
    await page.fill('input[aria-label="Key name"]', 'trading bot')
    await page.click('button:has-text("Create key")')
    const key = await page.inputValue('[data-testid=new-key]')
    expect(key).toMatch(/^tw_live_/)
    await expect.poll(() => page.textContent('[data-testid=keys-table]'), POLL).toContain('trading bot')
    const keyId = key.split('_')[2]!
    const row = page.locator('[data-testid=keys-table] tr', { hasText: 'trading bot' })
    await row.locator('button:has-text("Alerts")').click()
    await page.click('button:has-text("TradingView alert secret")')
    await page.fill('.alert-box input[size="22"]', 'BINANCE:ETHUSDT.P')
    await page.selectOption('.alert-box select', 'short')
    const message = JSON.parse(
      (await page.inputValue('[data-testid=alert-message]')).replace('{{close}}', '1')
    ) as Record<string, string>
    expect(message['secret']).toMatch(/^tw_alert_/)
    expect(message['symbol']).toBe('BINANCE:ETHUSDT.P')
    expect(message['direction']).toBe('short')
    await shot(page, 'api-access')

    await page.click('nav >> text=Usage')
    const used = page.locator(`[data-testid=used-today-${keyId}]`)
    await used.waitFor()
    const before = Number((await used.textContent())!.replace(/,/g, ''))
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': key } })
      expect(res.status).toBe(200)
    }
    await page.click('button:has-text("Refresh")')
    await expect.poll(async () => Number((await used.textContent())!.replace(/,/g, '')), POLL).toBe(before + 3)
    expect(await colouredPixels(page, `[data-testid=usage-chart-${keyId}]`)).toBeGreaterThan(0)
    await shot(page, 'usage')
  }, 120_000)

  it('registers a webhook against the local HTTPS receiver and sees the test delivery in the log', async () => {
    await page.click('nav >> text=Webhooks')
    await page.fill('input[name=url]', hookUrl)
    await page.fill('input[name=secret]', WEBHOOK_SECRET)
    await page.click('button:has-text("Register")')
    const card = page.locator('[data-testid^=webhook-]').first()
    await card.waitFor()
    await card.locator('button:has-text("Send test")').click()
    await expect.poll(() => card.locator('[data-testid=test-result]').textContent(), POLL).toContain('delivered')
    const log = card.locator('[data-testid^=deliveries-]')
    // only the TEST deliveries: the demo market's own signals may reach the same webhook (it takes every event)
    const testRows = log.locator('tbody tr').filter({ has: page.locator('td:nth-child(2)', { hasText: /^TEST$/ }) })
    const testLog = async (): Promise<string> => (await testRows.allTextContents()).join('\n')
    await expect.poll(testLog, POLL).toContain('delivered')
    expect(await testLog()).toContain('200')
    const received = receiver.received.filter((r) => r.headers['x-service-event'] === 'TEST')
    expect(received.length).toBeGreaterThan(0)
    expect(received[0]!.serviceSignatureOk).toBe(true)
    // disable, then enable again
    await card.locator('button:has-text("Disable")').click()
    await expect.poll(() => card.textContent(), POLL).toContain('disabled')
    await card.locator('button:has-text("Enable")').click()
    await expect.poll(() => card.textContent(), POLL).toContain('active')
    // a failed delivery is redelivered from the log
    receiver.answer = () => ({ status: 500, body: 'receiver down' })
    await card.locator('button:has-text("Send test")').click()
    await expect.poll(() => card.locator('[data-testid=test-result]').textContent(), POLL).toContain('test failed: 500')
    const failedRow = testRows.filter({ hasText: 'failed' })
    await expect.poll(() => failedRow.count(), POLL).toBe(1)
    expect(await failedRow.textContent()).toContain('receiver down')
    receiver.answer = () => ({ status: 200, body: 'ok again' })
    await failedRow.locator('button:has-text("Redeliver")').click()
    await expect
      .poll(
        async () => {
          await card.locator('button:has-text("Refresh")').click()
          return testRows.locator('.state.delivered').count()
        },
        // the redelivery goes through the delivery queue: generous on a loaded machine
        { timeout: 60_000 }
      )
      .toBe(2)
    // edit the events and symbols
    await card.locator('button:has-text("Edit")').click()
    await card.locator('input[aria-label=Events]').fill('HIGH, VETO')
    await card.locator('input[aria-label=Symbols]').fill('BTC, ETH')
    await card.locator('button:has-text("Save")').click()
    await expect.poll(() => card.textContent(), POLL).toContain('events HIGH, VETO · symbols BTC, ETH')
    await shot(page, 'webhooks')
  }, 120_000)

  it('revokes a key from API access: its calls are refused at once', async () => {
    await page.click('nav >> text=API access')
    await page.fill('input[aria-label="Key name"]', 'short-lived')
    await page.click('button:has-text("Create key")')
    const key = await page.inputValue('[data-testid=new-key]')
    const call = (): Promise<number> =>
      fetch(`${server.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': key } }).then(
        (r) => r.status
      )
    expect(await call()).toBe(200)
    const dashboardRow = page.locator('[data-testid=keys-table] tr', { hasText: 'dashboard key' })
    expect(await dashboardRow.count()).toBe(1)
    expect(await dashboardRow.locator('button:has-text("Revoke")').count()).toBe(0)
    page.once('dialog', (d) => void d.accept())
    const row = page.locator('[data-testid=keys-table] tr', { hasText: 'short-lived' })
    await row.locator('button:has-text("Revoke")').click()
    await expect.poll(() => row.textContent(), POLL).toContain('revoked')
    expect(await call()).toBe(401)
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
    await expect.poll(() => colouredPixels(page, '[data-testid=candles-chart]'), POLL).toBeGreaterThan(MIN_DATA_PIXELS)
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

  it('every page on a 390x844 phone screen: no sideways scrolling, tidy charts, a screenshot each', async () => {
    const phone = await browser.newContext({ viewport: PHONE, storageState: await owner.storageState() })
    const p = await phone.newPage()
    watch(p)
    const pages: [string, string, string | null][] = [
      ['candles', '/candles?symbol=BTC&timeframe=1h', null],
      ['options', '/options', '[data-testid=options-canvas]'],
      ['funding', '/funding?symbol=BTC', '[data-testid=funding-canvas]'],
      ['whales', '/whales', '[data-testid=whales-canvas]'],
      ['screener', '/screener', null],
      ['confirm', '/confirm?symbol=ETH&direction=short', '[data-testid=confirm-canvas]'],
      ['api-access', '/keys', null],
      ['usage', '/usage', null],
      ['webhooks', '/webhooks', null],
      ['account-owner', '/account', null]
    ]
    for (const [name, url, chart] of pages) {
      await p.goto(`${server.base}${url}`)
      await p.locator('main .page-head h1').waitFor()
      if (chart) {
        await expectChartDrawn(p, chart)
        await expectTidyChart(p, chart)
      }
      await expectNoSidewaysScroll(p, name)
      expect(await errorLines(p)).toEqual([])
      await shot(p, name)
    }
    await phone.close()
  }, 180_000)

  it('reported no Content-Security-Policy violation on any page', () => {
    expect(cspViolations).toEqual([])
  })
})
