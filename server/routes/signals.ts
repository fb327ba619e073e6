/**
 * @module
 * `GET /v1/signals`: the stored signal events (docs/signals.md), newest first, filtered by symbol (the one
 * resolver, engine/symbols/resolve.ts), event, direction and since, paged by an opaque cursor. A key sees
 * the engine's events and its own forwarded alerts. Plans: trader and up (feature `stream`), the plans whose
 * push stream carries the same events on `signals:` channels; their delivery to webhooks is pro and up.
 */
import { ApiError } from '../../engine/errors.js'
import type { SignalEventName } from '../../engine/signals/signal-event.js'
import { decodeCursor, encodeCursor, listSignals } from '../../engine/signals/signal-store.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { resolveBase } from '../../engine/symbols/resolve.js'
import { SignalsQuery, SignalsResponse } from '../../schemas/api/signals.js'
import { AccessControl } from '../access/access-control.js'
import type { ServerContext } from '../context.js'
import { json, type Route } from '../http/types.js'

/** Latest `since` accepted, epoch ms (year 2286, as the historical endpoints). */
const MAX_SINCE_MS = 9_999_999_999_999

const badSince = (text: string): ApiError =>
  new ApiError(
    'invalid_parameter',
    `since must be epoch milliseconds or an ISO 8601 date or date-time from 1970 to 2286 (got ${text})`,
    { param: 'since' }
  )

/**
 * `since` as epoch ms: digits are epoch ms; an ISO date is midnight UTC; a date-time without an offset is
 * UTC. A calendar day that does not exist (2026-02-30: Date.parse would roll it into March) is refused.
 */
export function parseSince(text: string): number {
  let ms: number
  if (/^[0-9]+$/.test(text)) ms = Number(text)
  else {
    const hasOffset = /(Z|[+-][0-9]{2}:[0-9]{2})$/.test(text)
    ms = Date.parse(text.includes('T') && !hasOffset ? `${text}Z` : text)
    const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number]
    const day = new Date(0)
    day.setUTCFullYear(y, m - 1, d)
    if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) ms = Number.NaN
  }
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_SINCE_MS) throw badSince(text)
  return ms
}

export function signalRoutes(ctx: Pick<ServerContext, 'live' | 'store'>): Route[] {
  const known = screenerBases(ctx.live.screener)
  return [
    {
      method: 'GET',
      path: '/v1/signals',
      access: 'key',
      feature: 'stream',
      summary: 'Signal events (HIGH, MEDIUM, VETO, SIGNAL) the engine fired, newest first, paged by cursor',
      description:
        'The events outbound webhooks deliver, as stored: when each fires (hysteresis, cooldown) is documented in docs/signals.md. Walk pages by passing next_cursor as cursor with the same filters until it is null; each event appears once, and events that fire meanwhile do not shift later pages.',
      tags: ['signals'],
      query: SignalsQuery,
      response: SignalsResponse,
      handler: async (req) => {
        const q = req.q
        let symbol: string | undefined
        if (q['symbol'] !== undefined) {
          // 400 for a refused form or an unknown base (with suggestions), then 403 outside the plan
          symbol = resolveBase(q['symbol'] as string, known)
          AccessControl.checkSymbol(req.plan, symbol, 'symbol')
        }
        const sinceMs = q['since'] === undefined ? undefined : parseSince(q['since'] as string)
        const after = q['cursor'] === undefined ? undefined : decodeCursor(q['cursor'] as string)
        if (after === null) {
          throw new ApiError('invalid_parameter', 'cursor is not a next_cursor this service answered', {
            param: 'cursor'
          })
        }
        const page = await listSignals(ctx.store, {
          keyId: req.key?.id ?? null,
          limit: q['limit'] as number,
          ...(symbol === undefined ? {} : { symbol }),
          ...(q['event'] === undefined ? {} : { event: q['event'] as SignalEventName }),
          ...(q['direction'] === undefined ? {} : { direction: q['direction'] as 'long' | 'short' }),
          ...(sinceMs === undefined ? {} : { sinceMs }),
          ...(after === undefined ? {} : { after })
        })
        return json(200, { data: page.events, next_cursor: page.next ? encodeCursor(page.next) : null })
      }
    }
  ]
}
