/**
 * The pieces of inbound alerts (engine/alerts): the duplicate window's bound and expiry, the sender
 * allow-list, reading an alert's fields, the secret format, the settings registry's ordering of changes
 * and reloads, and concurrent duplicates sharing one answer.
 */
import { describe, expect, it } from 'vitest'
import { DuplicateWindow } from '../../engine/alerts/alert-dedup.js'
import { parseAllowList, SenderAllowList, TRADINGVIEW_SENDER_IPS } from '../../engine/alerts/sender-allow-list.js'
import { parseAlertJson, readAlertFields } from '../../engine/alerts/alert-body.js'
import { generateAlertSecret, parseAlertSecret } from '../../engine/alerts/alert-secret.js'
import { AlertSettingsRegistry } from '../../engine/alerts/alert-settings.js'
import { StrategyStatuses } from '../../engine/alerts/strategy-status.js'
import { AlertService } from '../../engine/alerts/alert-service.js'
import { QuotaCounter } from '../../engine/access/quota.js'
import type { KeyRecord } from '../../engine/access/key-registry.js'
import { ConfirmAnswers } from '../../engine/live/confirm-answers.js'
import { LiveState } from '../../engine/live/live-state.js'
import { silentLogger } from '../../engine/log.js'
import { loadConfig } from '../../server/config.js'
import { ApiError } from '../../engine/errors.js'
import type { Store } from '../../engine/store/store.js'

describe('DuplicateWindow', () => {
  it('remembers an alert for the window from its first arrival, then forgets it', () => {
    const w = new DuplicateWindow<string>(60_000, 10)
    w.set('a', 'first', 1_000)
    expect(w.get('a', 60_999)).toBe('first')
    expect(w.get('a', 61_000)).toBeUndefined()
    expect(w.size).toBe(0)
  })

  it('holds at most its cap, forgetting the oldest first and counting those cut short', () => {
    const w = new DuplicateWindow<number>(60_000, 3)
    for (let i = 0; i < 5; i++) w.set(`k${i}`, i, 1_000 + i)
    expect(w.size).toBe(3)
    expect(w.evicted).toBe(2)
    expect(w.get('k0', 1_010)).toBeUndefined()
    expect(w.get('k4', 1_010)).toBe(4)
    // expired entries make room without counting as evicted
    w.set('late', 9, 100_000)
    expect(w.size).toBe(1)
    expect(w.evicted).toBe(2)
  })

  it('forgets a failed alert only if it is still the one remembered', () => {
    const w = new DuplicateWindow<string>()
    w.set('a', 'x', 0)
    w.delete('a', 'y')
    expect(w.get('a', 1)).toBe('x')
    w.delete('a', 'x')
    expect(w.get('a', 1)).toBeUndefined()
  })
})

describe('ALERT_ALLOWED_IPS', () => {
  it('reads addresses, CIDRs and the word tradingview; refuses anything else naming it', () => {
    expect(parseAllowList(' tradingview , 10.0.0.0/8,fd00::1')).toEqual([
      ...TRADINGVIEW_SENDER_IPS.map((ip) => `${ip}/32`),
      '10.0.0.0/8',
      'fd00::1/128'
    ])
    expect(parseAllowList('')).toEqual([])
    expect(() => parseAllowList('10.0.0.0/8,tradingviews')).toThrow(/'tradingviews'/)
    expect(() => loadConfig({ ALERT_ALLOWED_IPS: '300.1.1.1' })).toThrow(/^ALERT_ALLOWED_IPS must be/)
  })

  it('matches IPv4, IPv4-mapped IPv6 and IPv6 senders; an empty list allows everyone', () => {
    const list = new SenderAllowList(parseAllowList('tradingview,10.1.0.0/16,2001:db8::/32'))
    expect(list.allows('52.89.214.238')).toBe(true)
    expect(list.allows('::ffff:52.89.214.238')).toBe(true)
    expect(list.allows('0000:0000:0000:0000:0000:ffff:0a01:0203')).toBe(true) // 10.1.2.3, uWS's long form
    expect(list.allows('2001:db8::7')).toBe(true)
    expect(list.allows('52.89.214.239')).toBe(false)
    expect(list.allows('not an address')).toBe(false)
    expect(new SenderAllowList([]).allows('')).toBe(true)
  })

  it('ALERT_SOURCES adds lower-case names after tradingview', () => {
    expect(loadConfig({ ALERT_SOURCES: 'trendspider, my_bot,tradingview' }).alertSources).toEqual([
      'tradingview',
      'trendspider',
      'my_bot'
    ])
    expect(() => loadConfig({ ALERT_SOURCES: 'Trend/Spider' })).toThrow(/^ALERT_SOURCES must be .*'Trend\/Spider'/)
  })
})

describe('alert body', () => {
  const read = (o: object) => readAlertFields(parseAlertJson(Buffer.from(JSON.stringify(o))))

  it('reads the fields, quoted prices and buy/sell', () => {
    expect(
      read({
        secret: 's',
        symbol: ' BINANCE:BTCUSDT.P ',
        direction: 'Buy',
        timeframe: '1D',
        strategy: 'x',
        price: '1.5'
      })
    ).toEqual({
      symbol: 'BINANCE:BTCUSDT.P',
      direction: 'long',
      timeframe: '1D',
      strategy: 'x',
      price: 1.5,
      alertId: null,
      seq: null,
      barTime: null,
      tickerAlso: null
    })
    expect(read({ symbol: 'BTC', direction: 'short', timeframe: null })).toMatchObject({ timeframe: null, price: null })
  })

  it('refuses what is not a JSON object with invalid_body, and names the field otherwise', () => {
    for (const raw of ['', 'hello', '[1]', 'null', '{"price":NaN}']) {
      expect(() => parseAlertJson(Buffer.from(raw)), raw).toThrow(expect.objectContaining({ code: 'invalid_body' }))
    }
    const param = (o: object): string | undefined => {
      try {
        read(o)
      } catch (err) {
        return (err as ApiError).param
      }
      return undefined
    }
    expect(param({ symbol: 'BTC', direction: 'long', price: 0 })).toBe('price')
    expect(param({ symbol: 'BTC', direction: 'long', strategy: 'x'.repeat(101) })).toBe('strategy')
    expect(param({ symbol: 'X'.repeat(41), direction: 'long' })).toBe('symbol')
    expect(param({ symbol: 'BTC', direction: 'long', extra: 1 })).toBe('extra')
  })
})

describe('alert secret', () => {
  it('embeds the key id and stores only the digest of the random part', () => {
    const g = generateAlertSecret('abcdefghij')
    expect(g.secret).toMatch(/^tw_alert_abcdefghij_[A-Za-z0-9_-]{43}$/)
    const p = parseAlertSecret(g.secret)!
    expect(p.keyId).toBe('abcdefghij')
    expect(g.secretSha256).not.toContain(p.random)
    expect(parseAlertSecret(`${g.secret}x`)).toBeNull()
    expect(parseAlertSecret('tw_live_abcdefghij_' + p.random)).toBeNull()
  })
})

/** A store whose alert_settings read returns `rows()`, and whose commands wait for `gate` when set. */
function settingsStore(rows: () => unknown[]) {
  const commands: Record<string, unknown>[] = []
  let gate: Promise<void> | null = null
  const store = {
    kind: 'chdb',
    async query() {
      return rows()
    },
    async command(_sql: string, params: Record<string, unknown>) {
      if (gate) await gate
      commands.push(params)
    }
  } as unknown as Store
  return { store, commands, hold: (p: Promise<void> | null) => (gate = p) }
}

describe('AlertSettingsRegistry', () => {
  it('applies changes of one key in order, each from the previous result', async () => {
    const s = settingsStore(() => [])
    const reg = new AlertSettingsRegistry(s.store)
    const [rotated, forwarded] = await Promise.all([reg.rotate('k000000001'), reg.setForward('k000000001', true)])
    expect(forwarded.secretSha256).toBe(rotated.settings.secretSha256)
    expect(forwarded.forward).toBe(true)
    expect(reg.authenticate(rotated.secret)).toBe('k000000001')
    expect(forwarded.version).toBeGreaterThan(rotated.settings.version)
    expect(s.commands.map((c) => c['forward'])).toEqual([0, 1])
  })

  it('keeps a local change newer than what a reload read', async () => {
    let stored: unknown[] = []
    const s = settingsStore(() => stored)
    const reg = new AlertSettingsRegistry(s.store)
    const { secret } = await reg.rotate('k000000002')
    stored = [] // a reload that read the table before the rotation landed
    await reg.load()
    expect(reg.authenticate(secret)).toBe('k000000002')
    // a newer row written by another server replaces it
    const other = reg.get('k000000002')
    stored = [
      {
        key_id: 'k000000002',
        secret_sha256: '',
        secret_created_ms: null,
        forward: 0,
        updated_ms: other.updatedAt + 1,
        version: other.version + 1
      }
    ]
    await reg.load()
    expect(reg.authenticate(secret)).toBeNull()
  })

  it('changes nothing in memory when the store refuses the write', async () => {
    const s = settingsStore(() => [])
    const reg = new AlertSettingsRegistry(s.store)
    const { secret } = await reg.rotate('k000000003')
    s.hold(Promise.reject(new Error('store down')))
    await expect(reg.rotate('k000000003')).rejects.toThrow('store down')
    expect(reg.authenticate(secret)).toBe('k000000003')
  })
})

describe('AlertService', () => {
  it('lets concurrent duplicates share one answer, counted once', async () => {
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    const store = {
      kind: 'chdb',
      async query() {
        await gate
        return []
      },
      async command() {}
    } as unknown as Store
    const live = new LiveState(store)
    live.apply([
      {
        kind: 'funding',
        ts: Date.now(),
        exchange: 'binance',
        symbol: 'BTCUSDT',
        base: 'BTC',
        funding_rate: 0.0001,
        interval_hours: 8
      }
    ])
    const settings = new AlertSettingsRegistry(store)
    const { secret } = await settings.rotate('k000000004')
    const key: KeyRecord = {
      id: 'k000000004',
      name: '',
      plan: 'pro',
      secretSha256: '',
      createdAt: 0,
      revokedAt: null
    }
    const quota = new QuotaCounter(store)
    const service = new AlertService({
      sources: ['tradingview'],
      allowList: new SenderAllowList([]),
      settings,
      keyOf: (id) => (id === key.id ? key : undefined),
      quota,
      answers: new ConfirmAnswers(live),
      known: new Set(['BTC']),
      strategies: new StrategyStatuses(store),
      log: silentLogger()
    })
    const body = Buffer.from(JSON.stringify({ secret, symbol: 'BTCUSDT', direction: 'long' }))
    const a = service.receive('tradingview', body, '')
    const b = service.receive('tradingview', body, '')
    expect(a).toBeInstanceOf(Promise)
    open()
    const [first, second] = await Promise.all([a, b])
    expect(first.duplicate).toBe(false)
    expect(second.duplicate).toBe(true)
    expect(second.alertId).toBe(first.alertId)
    expect(quota.used(key.id)).toBe(1)
    // the remembered answer is now served synchronously
    const c = service.receive('tradingview', body, '')
    expect(c).not.toBeInstanceOf(Promise)
    expect(JSON.parse((c as { body: string }).body)).toMatchObject({ alert_id: first.alertId, duplicate: true })
  })
})
