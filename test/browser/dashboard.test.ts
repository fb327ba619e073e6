/**
 * The dashboard end to end in headless Chromium (Debian's `chromium`, driven by playwright-core) over the
 * built server as a user runs it (dist/server/main.js: real chDB, the demo market with a one-day backfill)
 * and a local HTTPS webhook receiver trusted through NODE_EXTRA_CA_CERTS (WEBHOOK_ALLOW_PRIVATE lets the
 * server reach 127.0.0.1). Steps, each through the UI: sign up the owner; make an invite link and sign up a
 * second account with it in another browser context, set its plan; log out and log in; change the
 * password (the old one is refused, the new one logs in); create an API key (secret shown once), make its
 * TradingView alert message; call /v1/confirm with the key from the test and see the usage count move;
 * register a webhook against the receiver, send a test and see it delivered in the log (and signed, at
 * the receiver), fail one and redeliver it, disable/enable and edit the webhook; revoke a key (its calls
 * get 401 at once); open every market view and read the canvases' pixels (data drawn,
 * not just elements), sort and filter the screener; see the Confirm page's history and evaluation. No CSP violation may be reported on any page.
 *
 * Measured and written to test-artifacts/dashboard/metrics.json (reported, never asserted as timings): the
 * JavaScript bytes of the first load (as transferred, and gzip per dist/web/build-report.json; and of every
 * chunk, the most a chart page loads), the time
 * from navigation start to the app's `tw:interactive` mark, and from a cold browser launch to that mark.
 * A screenshot of every page goes to test-artifacts/dashboard/<page>.png.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'
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

/** expect.poll waits 1 s by default; password hashing (scrypt) and a loaded machine need longer */
const POLL = { timeout: 20_000 }

const metrics: Record<string, unknown> = {}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })
}

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
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } })
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

  it('signs up the owner, invites a second account, logs out and in again', async () => {
    await shot(page, 'signup')
    await submitCredentials(page, OWNER, 'Create account')
    await page.click('nav >> text=Account')
    await page.click('button:has-text("Create invite link")')
    const invite = await page.inputValue('[data-testid=invite-url]')
    expect(invite).toMatch(/\/signup\?invite=/)
    await shot(page, 'account-owner')

    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const p2 = await other.newPage()
    watch(p2)
    await p2.goto(invite)
    await expect.poll(() => p2.textContent('main'), POLL).toContain('You were invited')
    await shot(p2, 'signup-invited')
    await submitCredentials(p2, MEMBER, 'Create account')
    expect(await p2.textContent('nav')).toContain(MEMBER.email)
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
        { timeout: 30_000 }
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
    page.once('dialog', (d) => void d.accept())
    const row = page.locator('[data-testid=keys-table] tr', { hasText: 'short-lived' })
    await row.locator('button:has-text("Revoke")').click()
    await expect.poll(() => row.textContent(), POLL).toContain('revoked')
    expect(await call()).toBe(401)
  }, 60_000)

  const views: [string, string, string][] = [
    ['candles', '/candles?symbol=BTC&timeframe=1h', '[data-testid=candles-chart]'],
    ['options', '/options', '[data-testid=options-canvas]'],
    ['funding', '/funding?symbol=BTC', '[data-testid=funding-canvas]'],
    ['whales', '/whales', '[data-testid=whales-canvas]'],
    ['confirm', '/confirm?symbol=ETH&direction=short', '[data-testid=confirm-canvas]']
  ]
  for (const [name, url, chart] of views) {
    it(`${name}: the chart has drawn data (pixels) and the demo data is labelled`, async () => {
      await page.goto(`${server.base}${url}`)
      await expect.poll(() => colouredPixels(page, chart), POLL).toBeGreaterThan(MIN_DATA_PIXELS)
      // the label renders from its own request: waited for like the chart, not read once
      await expect.poll(() => page.textContent('.page-head'), POLL).toContain('Demo data (synthetic)')
      await shot(page, name)
    }, 60_000)
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
  }, 60_000)

  it('candles: the symbol box and the timeframe choose what is drawn', async () => {
    await page.goto(`${server.base}/candles?symbol=BTC&timeframe=1h`)
    const meta = page.locator('p.muted').first()
    await expect.poll(() => meta.textContent(), POLL).toContain('BTCUSDT')
    await page.fill('input[aria-label=Symbol]', 'eth')
    await page.selectOption('select[aria-label=Timeframe]', '15m')
    await page.click('button:has-text("Show")')
    await expect.poll(() => meta.textContent(), POLL).toMatch(/ETHUSDT on \w+, \d+ candles of 15m/)
    await expect.poll(() => colouredPixels(page, '[data-testid=candles-chart]'), POLL).toBeGreaterThan(MIN_DATA_PIXELS)
  }, 60_000)

  it('screener: rows, sorting by a column, filtering by symbol and venue, live stream connected', async () => {
    await page.goto(`${server.base}/screener`)
    const table = page.locator('[data-testid=screener-table]')
    await expect.poll(() => table.locator('tbody tr').count(), POLL).toBeGreaterThan(10)
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
  }, 60_000)

  it('reported no Content-Security-Policy violation on any page', () => {
    expect(cspViolations).toEqual([])
  })
})
