/**
 * Stopping `npm start` the way a terminal does: SIGINT (Ctrl-C) or SIGTERM to the whole process group, so the
 * server gets the signal once from the kernel and once more forwarded by npm. 20 such stops, each at a random
 * (seeded) moment of live work — admin ingest, usage-counted API calls, webhook deliveries to a local HTTPS
 * receiver, a streaming export and an EVM chain source following anvil — and a restart after each. Every stop
 * is one clean stop: exit 0 (never 1, never 134/139), within the hard deadline; and after the restarts, every
 * ingest batch answered 201, every call answered 200 and every webhook event answered 202 is there. The stops
 * run in two groups at once (10 each), each its own server on its own port and data directory with its own
 * key and webhook, both following the one anvil and delivering to the one receiver: a run waits mostly on its
 * start (npm, the store's opening) and on the random moment, which the groups overlap, and each group's
 * stops fall while the other group starts, works or stops. The groups, their workloads and the checks of what
 * they acknowledged: test/helpers/stop-groups.ts; `npm start` as a terminal runs it: test/helpers/npm-start.ts.
 */
import crypto from 'node:crypto'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HARD_STOP_MS } from '../../server/stop-signals.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { BEHIND } from '../fixtures/evm/whales/harness.js'
import { deployScenario, writeWatchlist, type Scenario } from '../fixtures/evm/whales/scenario.js'
import { npmStart, poll, type Npm } from '../helpers/npm-start.js'
import { freePort } from '../helpers/spawn-server.js'
import { ADMIN, body, call, group, verifyBatches, verifyOutbox, workloads, type Group } from '../helpers/stop-groups.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'

const STOPS = 20
/** server groups stopping at once; STOPS / GROUPS stops each */
const GROUPS = 2
const SECRET = 'signal-stops-secret-0123456789'
const SEED = Number(process.env['STOP_SEED'] ?? crypto.randomInt(1, 2 ** 31))

let anvil: Anvil
let chain: Scenario
let tls: TestCa
let receiver: WebhookReceiver
let hookUrl = ''
const groups = Array.from({ length: GROUPS }, (_, i) => group(i, SEED))
const lists = tmpDir('tw-signal-stops-lists-')
/** the environment of every start but DATA_DIR (the group's) and PORT */
let env: Record<string, string>

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, args: BEHIND() })
  chain = await deployScenario(anvil.url, 'ethereum')
  writeWatchlist(path.join(lists.dir, 'w'), 'ethereum', chain)
  const start = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  tls = makeTestCa()
  receiver = new WebhookReceiver(tls, SECRET)
  receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 100 })
  hookUrl = await receiver.start()
  env = {
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'info',
    SOURCES: 'evm:ethereum',
    ETHEREUM_RPC_URL: anvil.url,
    ETHEREUM_CONFIRMATIONS: '1',
    ETHEREUM_START_BLOCK: String(start + 1),
    ETHEREUM_POLL_MS: '50',
    WATCHLIST_DIR: path.join(lists.dir, 'w'),
    NODE_EXTRA_CA_CERTS: tls.caFile,
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_KEY: crypto.randomBytes(32).toString('hex')
  }
}, 120_000)

afterAll(async () => {
  await receiver?.stop()
  await anvil?.stop()
  tls?.cleanup()
  for (const g of groups) g.data.cleanup()
  lists.cleanup()
})

/** the server processes still running, killed when a test fails */
const running = new Set<Npm>()
/** stops that logged npm's forwarded copy as the same stop, over both groups */
let repeatsSeen = 0
/** set when a group failed: the other stops before its next start */
let failed = false

async function startReady(g: Group): Promise<Npm> {
  const s = npmStart({ ...env, DATA_DIR: g.data.dir }, await freePort())
  running.add(s)
  await poll('ready', async () => ((await fetch(`${s.base}/v1/ready`)).status === 200 ? true : undefined), 90_000, s)
  return s
}

/** `stops` starts, each checked then stopped by a group signal at a random moment of live work, and a last start. */
async function stopRuns(g: Group, stops: number): Promise<void> {
  /** the log of the run stopped last (what a count missing after its restart points at) */
  let lastLog = ''
  for (let stop = 0; stop <= stops; stop++) {
    if (failed) return
    const s = await startReady(g)
    const at = `seed ${SEED}, group ${g.name}, start ${stop}`
    if (stop === 0) {
      g.key = (await body(call(s.base, 'POST', '/v1/admin/keys', '{"plan":"pro"}'))).key
      const reg = JSON.stringify({ url: hookUrl, events: ['*'], symbols: ['*'], secret: SECRET })
      g.webhookId = (await body(call(s.base, 'POST', '/v1/webhooks', reg, g.key))).webhook_id
      g.acked.calls++ // the registration is a counted call of the key
      g.callsSent++
    }
    // after each restart: the previous run's end is on /v1/health
    const health = await body(fetch(`${s.base}/v1/health`))
    expect(health.last_stop, at).toEqual(stop === 0 ? null : { kind: 'clean', at: expect.any(String) })
    // every call answered before the stops is counted (no more than were sent)
    const usage = await body(call(s.base, 'GET', '/v1/usage', undefined, g.key))
    expect(usage.calls_today, `${at}\n${lastLog}`).toBeGreaterThanOrEqual(g.acked.calls)
    expect(usage.calls_today, at).toBeLessThanOrEqual(g.callsSent)
    if (stop === stops) {
      await verifyOutbox(s, g)
      s.child.kill('SIGTERM') // npm alone: it forwards to the server
      expect(await s.exited).toEqual({ code: 0, signal: null })
      running.delete(s)
      return
    }

    const work = workloads(s, g, chain)
    await poll('work under way', async () => (g.acked.batches.size > 0 ? true : undefined), 30_000, s)
    await new Promise((r) => setTimeout(r, 100 + g.rnd() * 1_400)) // the random moment, not a synchronisation
    const sig = g.rnd() < 0.5 ? 'SIGINT' : 'SIGTERM'
    const signalledAt = Date.now()
    process.kill(-s.child.pid!, sig) // the whole group: npm forwards its copy to the server
    const ended = await Promise.race([
      s.exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), HARD_STOP_MS + 20_000))
    ])
    const where = `seed ${SEED}, group ${g.name}, stop ${stop} (${sig}, ${Date.now() - signalledAt} ms)\n${s.out.slice(-3000)}`
    expect(ended, where).not.toBe('hung')
    expect(ended, where).toEqual({ code: 0, signal: null })
    expect(s.out, where).toContain('stopped cleanly')
    if (s.out.includes(`${sig} again: the same stop`)) repeatsSeen++
    running.delete(s)
    lastLog = s.out.slice(-4000)
    await work
  }
}

describe('group SIGINT/SIGTERM through npm start', () => {
  it(`${STOPS} stops at random moments of live work: each one clean stop, nothing acknowledged lost`, async () => {
    console.log(`signal-stops seed ${SEED} (STOP_SEED=${SEED} repeats the run)`)
    try {
      const ran = await Promise.allSettled(
        groups.map((g) =>
          stopRuns(g, STOPS / GROUPS).catch((err: unknown) => {
            failed = true
            throw err
          })
        )
      )
      for (const r of ran) if (r.status === 'rejected') throw r.reason
    } finally {
      for (const s of running) if (s.child.exitCode === null) process.kill(-s.child.pid!, 'SIGKILL')
    }
    // npm's forwarded copy did reach the server (the double delivery this is about)
    expect(repeatsSeen, `seed ${SEED}`).toBeGreaterThan(0)
    for (const g of groups)
      console.log(
        `signal-stops group ${g.name}: ${STOPS / GROUPS} stops; acknowledged ${g.acked.batches.size} batches, ${g.acked.calls} calls, ${g.acked.events.size} webhook events`
      )
    console.log(`signal-stops: ${STOPS} stops, ${repeatsSeen} with npm's repeat logged`)

    for (const g of groups) await verifyBatches(g)
  }, 600_000)

  it('a distinct second signal forces: exit status 137 (SIGKILL, no native crash), logged with what it left', async () => {
    const g = groups[0]!
    const s = await startReady(g)
    try {
      // webhook answers held 5 s: the stop waits for the attempts in flight, so the second signal finds it under way
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 5_000 })
      const seen = receiver.received.length
      const work = workloads(s, g, chain)
      await poll('a delivery in flight', async () => (receiver.received.length > seen ? true : undefined), 30_000, s)
      process.kill(-s.child.pid!, 'SIGINT')
      await poll('stop under way', async () => (s.out.includes('shutting down') ? true : undefined), 30_000, s)
      process.kill(-s.child.pid!, 'SIGTERM') // a different signal: forces
      const ended = await s.exited
      running.delete(s)
      // the server killed itself with SIGKILL; npm re-raises its child's signal on itself
      expect(ended, s.out.slice(-3000)).toEqual({ code: null, signal: 'SIGKILL' })
      expect(s.out).not.toContain('stopped cleanly')
      const line = s.out.split('\n').find((l) => l.includes('forced exit'))
      expect(line, s.out.slice(-3000)).toBeDefined()
      const forced = JSON.parse(line!)
      expect(forced).toMatchObject({ reason: 'SIGTERM during the stop', exit_status: 137 })
      expect(forced.left_unwritten).toMatchObject({ queued_rows: expect.any(Number), usage_calls: expect.any(Number) })
      expect(forced.left_unwritten.webhooks.in_flight).toBeGreaterThan(0)
      await work
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 100 })

      // the restart: everything acknowledged is there but the usage counts the log says were left unwritten
      const again = await startReady(g)
      // /v1/health keeps what the forced exit left unwritten
      const health = await body(fetch(`${again.base}/v1/health`))
      expect(health.last_stop).toEqual({
        kind: 'forced',
        at: expect.any(String),
        reason: 'SIGTERM during the stop',
        left_unwritten: forced.left_unwritten
      })
      const usage = await body(call(again.base, 'GET', '/v1/usage', undefined, g.key))
      expect(usage.calls_today).toBeGreaterThanOrEqual(g.acked.calls - forced.left_unwritten.usage_calls)
      expect(usage.calls_today).toBeLessThanOrEqual(g.callsSent)
      await verifyOutbox(again, g)
      again.child.kill('SIGTERM')
      expect(await again.exited).toEqual({ code: 0, signal: null })
      running.delete(again)
      await verifyBatches(g)
    } finally {
      for (const r of running)
        if (r.child.exitCode === null && r.child.signalCode === null) process.kill(-r.child.pid!, 'SIGKILL')
    }
  }, 300_000)
})
