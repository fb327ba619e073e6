/**
 * The dashboard's accounts end to end in headless Chromium over the built server with the demo market and a
 * local HTTPS webhook receiver (test/helpers/dashboard-browser.ts). Steps, each through the UI: sign up the
 * owner; make an invite link and sign up a second account with it in another browser context, set its plan;
 * log out and log in; change the password (the old one is refused, the new one logs in); the free member's
 * navigation leaves out what its plan cannot open (Screener, Webhooks), which explains itself when opened,
 * and its dashboard key has no Revoke button; create an API key (secret shown once), make its TradingView
 * alert message; call /v1/confirm with the key from the test and see the usage count move; register a
 * webhook against the receiver, send a test and see it delivered in the log (and signed, at the receiver),
 * fail one and redeliver it, disable/enable and edit the webhook; revoke a key (its calls get 401 at once);
 * every page again, signed in, on a 390x844 phone screen (no sideways scrolling of the page, charts laid out
 * as on the desktop). No CSP violation may be reported on any page. A screenshot of every page goes to
 * test-artifacts/dashboard/<page>-<width>.png, to be looked at.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { DESKTOP, PHONE, useDashboardBrowser, WEBHOOK_SECRET } from '../helpers/dashboard-browser.js'
import type { Spawned } from '../helpers/spawn-server.js'
import type { WebhookReceiver } from '../helpers/webhook-receiver.js'
import { colouredPixels } from './pixels.js'
import {
  CONFIRM_CANVAS,
  errorLines,
  expectChartDrawn,
  expectNoSidewaysScroll,
  expectTidyChart,
  MEMBER,
  OWNER,
  POLL,
  shot,
  submitCredentials
} from './page-checks.js'

const NEW_OWNER_PASSWORD = 'a brand new password'

describe('dashboard accounts in headless Chromium', () => {
  const dash = useDashboardBrowser()
  const { cspViolations, watch } = dash
  let server: Spawned
  let browser: Browser
  let owner: BrowserContext
  let page: Page
  let receiver: WebhookReceiver
  let hookUrl: string

  beforeAll(() => {
    server = dash.server
    browser = dash.browser
    owner = dash.owner
    page = dash.page
    receiver = dash.receiver
    hookUrl = dash.hookUrl
  })

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
      // the demo backfills one day: at the default 7 days its heatmap cells fill a seventh of a phone-wide
      // chart, and rates near 0 fade to the track's grey, so the saturated pixels depended on the hour's rates
      if (name === 'funding') await p.getByLabel('Lookback').selectOption('1d')
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
