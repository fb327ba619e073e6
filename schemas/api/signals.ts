/**
 * @module
 * Parameter and response schemas of `GET /v1/signals`: the stored signal events (docs/signals.md), newest
 * first, paged by cursor.
 */
import { Type } from '@sinclair/typebox'
import { SIGNAL_EVENT_NAMES } from '../../engine/signals/signal-event.js'
import { symbolParam } from './history.js'
import { EnumParam, IntParam, StringParam } from './params.js'

/** Epoch milliseconds, or an ISO 8601 date or date-time (the handler checks it is a real time). */
export const SINCE_PATTERN =
  '^([0-9]{1,16}|[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?)$'

export const SignalsQuery = Type.Object({
  symbol: Type.Optional(
    symbolParam('only events of this base asset; a pair or market names its base', undefined, false)
  ),
  event: Type.Optional(
    EnumParam(SIGNAL_EVENT_NAMES, {
      description: 'only this event: HIGH, MEDIUM, VETO or SIGNAL (docs/signals.md says when each fires)'
    })
  ),
  direction: Type.Optional(EnumParam(['long', 'short'] as const, { description: 'only this direction' })),
  since: Type.Optional(
    StringParam({
      description:
        'only events at or after this time: epoch milliseconds, or an ISO 8601 date (2026-01-31, midnight UTC) or date-time (2026-01-31T12:00:00Z; UTC without an offset). Rule: a time from 1970 to 2286',
      pattern: SINCE_PATTERN,
      rule: 'epoch milliseconds or an ISO 8601 date or date-time',
      maxLength: 29,
      examples: ['1767225600000', '2026-01-31', '2026-01-31T12:00:00Z']
    })
  ),
  limit: Type.Optional(IntParam(1, 200, { description: 'events per page', default: 50 })),
  cursor: Type.Optional(
    StringParam({
      description:
        'next_cursor of the previous page: the walk goes on after its last event (pass the same filters). Rule: a cursor this service answered; any other answers 400',
      pattern: '^[A-Za-z0-9_-]{1,400}$',
      rule: 'a next_cursor value',
      maxLength: 400
    })
  )
})

const SignalItem = Type.Object({
  id: Type.String({
    description: 'stable id, the same on the stream and in webhook deliveries (engine: BASE-direction-EVENT-ms)'
  }),
  event: Type.String({ enum: [...SIGNAL_EVENT_NAMES] }),
  ts: Type.Integer({ description: 'when it fired, epoch ms' }),
  symbol: Type.String({ description: 'base asset' }),
  direction: Type.String({ enum: ['long', 'short'] }),
  confidence: Type.String({
    description: 'confirmation bucket after the event: HIGH, MEDIUM, LOW, NONE or VETO (docs/signals.md)'
  }),
  composite: Type.Number({ minimum: -1, maximum: 1, description: 'confirmation composite for the direction' }),
  action: Type.String({ description: 'action bucket after the event: CONFIRM, REDUCE or SKIP' }),
  source: Type.String({ description: '`engine`, or `alert:<source>` for a forwarded inbound alert (yours only)' })
})

export const SignalsResponse = Type.Object({
  data: Type.Array(SignalItem, { description: 'newest first; ties in ts by id, descending' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as cursor for the next page; null on the last page'
  })
})
