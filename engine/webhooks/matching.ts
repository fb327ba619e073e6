/**
 * @module
 * Which webhooks an event goes to (spec "Events", rule 1): the event type and the payload's symbol both
 * match a registration, `*` in either list matching everything (an event whose payload has no symbol
 * matches only `*`); only active webhooks; and an event that belongs to one API key (`key_id` set, e.g. an
 * inbound alert forwarded as SIGNAL) goes only to that key's webhooks.
 */
import { WILDCARD, type Webhook } from './webhook.js'

/** What matching reads of an event. */
export interface Matchable {
  readonly type: string
  /** the payload's symbol, '' when it has none */
  readonly symbol: string
  readonly key_id?: string | undefined
}

export function matches(w: Webhook, e: Matchable): boolean {
  if (w.state !== 'active') return false
  if (e.key_id !== undefined && e.key_id !== w.keyId) return false
  const events = w.events
  if (events[0] !== WILDCARD && !events.includes(e.type)) return false
  const symbols = w.symbols
  return symbols[0] === WILDCARD || (e.symbol !== '' && symbols.includes(e.symbol))
}

/** The webhooks `e` goes to. */
export function matching(webhooks: Iterable<Webhook>, e: Matchable): Webhook[] {
  const out: Webhook[] = []
  for (const w of webhooks) if (matches(w, e)) out.push(w)
  return out
}
