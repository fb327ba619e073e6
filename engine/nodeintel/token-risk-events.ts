/**
 * @module
 * The `TOKEN_RISK_CHANGED` webhook event (catalog/webhook-events.ts) of a re-check that found a change. A
 * token watched as a new pair goes to every webhook registered for the type; a token only API keys
 * registered goes to those keys' webhooks (one event per key, `key_id` set). The event id is
 * `chain:token:block:trigger tx`, so the same change found twice gives deliveries with the same `webhook-id`.
 */
import { TOKEN_RISK_CHANGED, type TokenRiskChangedPayload } from '../../catalog/webhook-events.js'
import type { WebhookEvent } from '../webhooks/event.js'
import type { TokenRiskChange } from './recheck.js'
import type { VerdictPoint } from './verdict-change.js'

const verdictOf = (p: VerdictPoint): TokenRiskChangedPayload['before'] => ({
  verdict: p.verdict,
  is_honeypot: p.is_honeypot,
  method: p.method,
  buy_tax_pct: p.buy_tax_pct,
  sell_tax_pct: p.sell_tax_pct,
  transfer_tax_pct: p.transfer_tax_pct,
  block_number: p.block_number,
  checked_at: p.checked_at,
  reasons: [...p.reasons]
})

export function tokenRiskEvents(c: TokenRiskChange): WebhookEvent[] {
  const payload: TokenRiskChangedPayload = {
    chain: c.chain,
    token: c.token,
    changed: [...c.changed],
    before: verdictOf(c.before),
    after: verdictOf(c.after),
    trigger: { ...c.trigger }
  }
  const id = `${c.chain}:${c.token}:${c.after.block_number}:${c.trigger.tx_hash ?? c.trigger.kind}`
  const base = { id, type: TOKEN_RISK_CHANGED.name, ts: Date.parse(c.after.checked_at), payload }
  if (c.new_pair || c.keys.length === 0) return [base]
  return c.keys.map((key_id) => ({ ...base, key_id }))
}
