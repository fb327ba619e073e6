/**
 * What a re-check compares and sends (engine/nodeintel/verdict-change.ts, recheck-topics.ts,
 * token-risk-events.ts): a changed verdict or a tax moved past the threshold is a change, a smaller move is
 * not; the trigger topics are viem's hashes of the documented signatures; the webhook event goes to every
 * TOKEN_RISK_CHANGED webhook for a new-pair token and to the registering keys only otherwise.
 */
import { describe, expect, it } from 'vitest'
import { keccak256, toBytes } from 'viem'
import { Value } from '@sinclair/typebox/value'
import { FormatRegistry } from '@sinclair/typebox'
import { TOKEN_RISK_CHANGED, WEBHOOK_EVENT_NAMES } from '../../catalog/webhook-events.js'
import { TRIGGER_EVENTS, TRIGGER_TOPICS, triggerOfTopic } from '../../engine/nodeintel/recheck-topics.js'
import { tokenRiskEvents } from '../../engine/nodeintel/token-risk-events.js'
import { changesBetween, type VerdictPoint } from '../../engine/nodeintel/verdict-change.js'
import type { TokenRiskChange } from '../../engine/nodeintel/recheck.js'
import { parseChannel } from '../../engine/stream/channels.js'

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)))

const point = (over: Partial<VerdictPoint> = {}): VerdictPoint => ({
  verdict: 'ok',
  is_honeypot: false,
  method: 'simulate_v1_wallet',
  buy_tax_pct: 0,
  sell_tax_pct: 0,
  transfer_tax_pct: 0,
  block_number: 10,
  checked_at: '2026-11-29T02:00:00.000Z',
  reasons: [],
  ...over
})

describe('verdict changes', () => {
  it('a verdict change or a tax moved by more than the threshold is a change; a smaller move is not', () => {
    expect(changesBetween(point(), point({ sell_tax_pct: 1 }), 1)).toEqual([])
    expect(changesBetween(point(), point({ sell_tax_pct: 1.01 }), 1)).toEqual(['sell_tax_pct'])
    expect(changesBetween(point({ buy_tax_pct: 5 }), point({ buy_tax_pct: 3.5 }), 1)).toEqual(['buy_tax_pct'])
    expect(changesBetween(point(), point({ verdict: 'honeypot', is_honeypot: true, sell_tax_pct: 99 }), 1)).toEqual([
      'verdict',
      'sell_tax_pct'
    ])
    // a step that ran and now reverts (or the reverse) is a change of that tax
    expect(changesBetween(point({ transfer_tax_pct: 2 }), point({ transfer_tax_pct: null }), 1)).toEqual([
      'transfer_tax_pct'
    ])
    const noPool = point({ verdict: 'no_liquidity', buy_tax_pct: null, sell_tax_pct: null, transfer_tax_pct: null })
    expect(changesBetween(noPool, { ...noPool, block_number: 11 }, 1)).toEqual([])
  })
})

describe('trigger topics', () => {
  it('are the keccak-256 of the documented signatures, and read back by topic0', () => {
    const all = Object.values(TRIGGER_EVENTS).flat()
    expect(TRIGGER_TOPICS).toHaveLength(all.length)
    for (const t of TRIGGER_TOPICS) {
      expect(t.topic0).toBe(keccak256(toBytes(t.signature)))
      expect(triggerOfTopic(t.topic0.toUpperCase().replace('0X', '0x'))).toBe(t)
    }
    // OpenZeppelin Ownable's, as the reference notes give it
    expect(triggerOfTopic('0x8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0')?.kind).toBe('ownership')
    expect(triggerOfTopic('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef')).toBeUndefined()
  })
})

describe('TOKEN_RISK_CHANGED', () => {
  const change = (over: Partial<TokenRiskChange> = {}): TokenRiskChange => ({
    chain: 'bsc',
    token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    before: point(),
    after: point({ verdict: 'honeypot', is_honeypot: true, sell_tax_pct: 98.99, block_number: 12 }),
    changed: ['verdict', 'sell_tax_pct'],
    trigger: { kind: 'owner_tx', tx_hash: '0xab', block_number: 12, detail: '0x0b78f9c0', from: null },
    keys: ['k1', 'k2'],
    new_pair: false,
    ...over
  })

  it('is a registrable catalog type whose payload the catalog schema describes', () => {
    expect(WEBHOOK_EVENT_NAMES).toContain('TOKEN_RISK_CHANGED')
    const [e] = tokenRiskEvents(change())
    expect(Value.Check(TOKEN_RISK_CHANGED.payload, e!.payload)).toBe(true)
    expect(e!.id).toBe('bsc:0x5FbDB2315678afecb367f032d93F642f64180aa3:12:0xab')
  })

  it("goes to the registering keys' webhooks only, or to every webhook for a new-pair token", () => {
    expect(tokenRiskEvents(change()).map((e) => e.key_id)).toEqual(['k1', 'k2'])
    expect(tokenRiskEvents(change({ new_pair: true })).map((e) => e.key_id)).toEqual([undefined])
    expect(tokenRiskEvents(change({ keys: [] })).map((e) => e.key_id)).toEqual([undefined])
  })

  it('has the stream channel tokenrisk:<chain>', () => {
    expect(parseChannel('tokenrisk:BSC')).toMatchObject({ type: 'tokenrisk', name: 'tokenrisk:bsc', chain: 'bsc' })
    expect(() => parseChannel('tokenrisk:ethereum')).toThrow(/bsc or avax/)
  })
})
