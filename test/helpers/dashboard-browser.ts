/**
 * The setup of a dashboard browser test file (test/browser/dashboard-*.test.ts), once per file: the built
 * server as a user runs it (dist/server/main.js: real chDB, the demo market with a one-day backfill), a local
 * HTTPS webhook receiver trusted through NODE_EXTRA_CA_CERTS (WEBHOOK_ALLOW_PRIVATE lets the server reach
 * 127.0.0.1), headless Chromium (Debian's `chromium`, driven by playwright-core) and the owner's browser
 * context with its page open on /signup, the app interactive. Every page made through `watch` reports its
 * Content-Security-Policy violations into `cspViolations`. Registers the file's beforeAll/afterAll; read the
 * fields inside tests.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from './spawn-server.js'
import { tmpDir } from './tmp-dir.js'
import { makeTestCa, WebhookReceiver, type TestCa } from './webhook-receiver.js'

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
/** the screenshots and the first-load measure (git-ignored) */
export const ARTIFACTS = path.join(projectRoot(), 'test-artifacts', 'dashboard')
/** the shared secret of the receiver's webhook (what the dashboard registers it with) */
export const WEBHOOK_SECRET = 'receiver-secret-0123456789'
export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

export interface DashboardBrowser {
  readonly server: Spawned
  readonly browser: Browser
  readonly receiver: WebhookReceiver
  /** the receiver's HTTPS URL */
  readonly hookUrl: string
  /** the owner's desktop context (signed out until a test signs up) */
  readonly owner: BrowserContext
  /** the owner's page, first opened on /signup */
  readonly page: Page
  /** ms from the browser's launch (cold) to `tw:interactive` on the first page */
  readonly launchToInteractiveMs: number
  /** the CSP violations reported on the console of every watched page */
  readonly cspViolations: string[]
  /** collects `p`'s CSP violations */
  watch(p: Page): void
}

export function useDashboardBrowser(): DashboardBrowser {
  const data = tmpDir('tw-browser-')
  const cspViolations: string[] = []
  let ca: TestCa | undefined
  let receiver: WebhookReceiver | undefined
  let hookUrl = ''
  let server: Spawned | undefined
  let browser: Browser | undefined
  let owner: BrowserContext | undefined
  let page: Page | undefined
  let launchToInteractiveMs = 0

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
    launchToInteractiveMs = performance.now() - launched
  }, 240_000)

  afterAll(async () => {
    await browser?.close()
    if (server) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    await receiver?.stop()
    ca?.cleanup()
    data.cleanup()
  })

  return {
    get server() {
      return server!
    },
    get browser() {
      return browser!
    },
    get receiver() {
      return receiver!
    },
    get hookUrl() {
      return hookUrl
    },
    get owner() {
      return owner!
    },
    get page() {
      return page!
    },
    get launchToInteractiveMs() {
      return launchToInteractiveMs
    },
    cspViolations,
    watch
  }
}
