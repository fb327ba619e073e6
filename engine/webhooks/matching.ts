/**
 * @module
 * Which webhooks an event goes to (spec "Events", rule 1): the event name and the symbol both match a
 * registration, `*` in either list matching everything; only active webhooks; and an event that belongs
 * to one API key (an inbound alert forwarded as SIGNAL, `key_id` set) goes only to that key's webhooks.
 */
import type { SignalEvent } from '../signals/signal-event.js'
import { WILDCARD, type Webhook } from './webhook.js'

export function matches(w: Webhook, e: Pick<SignalEvent, 'event' | 'symbol' | 'key_id'>): boolean {
  if (w.state !== 'active') return false
  if (e.key_id !== undefined && e.key_id !== w.keyId) return false
  const events = w.events
  if (events[0] !== WILDCARD && !(events as readonly string[]).includes(e.event)) return false
  const symbols = w.symbols
  return symbols[0] === WILDCARD || symbols.includes(e.symbol)
}

/** The webhooks `e` goes to. */
export function matching(webhooks: Iterable<Webhook>, e: SignalEvent): Webhook[] {
  const out: Webhook[] = []
  for (const w of webhooks) if (matches(w, e)) out.push(w)
  return out
}
