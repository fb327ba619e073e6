/**
 * @module
 * The point-in-time parameters shared by every `as_of` endpoint (engine/asof/point-in-time.ts gives the
 * rules and parses them).
 */
import { Type } from '@sinclair/typebox'
import { MOMENT_FORMS, MOMENT_PATTERN } from '../../engine/asof/point-in-time.js'
import { StringParam } from './params.js'

export const AS_OF_PARAMS = {
  as_of: Type.Optional(
    StringParam({
      description:
        "answer as the service would have at this moment, from what it had received by then. Without it: the live answer. Rule: a date that exists, not in the future (400), not before the plan's history depth (403)",
      pattern: MOMENT_PATTERN,
      rule: MOMENT_FORMS,
      maxLength: 32,
      examples: ['2026-01-01T00:00:00Z', '1767225600000']
    })
  ),
  known_by: Type.Optional(
    StringParam({
      description:
        'use only records the service had received by this moment (default: as_of, so a later import never changes a past answer); later values ask what is known now about as_of. Rule: only with as_of; a date that exists, not in the future (400)',
      pattern: MOMENT_PATTERN,
      rule: MOMENT_FORMS,
      maxLength: 32,
      examples: ['2026-01-02T00:00:00Z']
    })
  )
} as const

/** The member every `as_of` answer adds to its endpoint's usual shape (absent from live answers). */
export const PointInTimeMember = Type.Object(
  {
    as_of: Type.String({ format: 'date-time', description: 'the moment answered' }),
    known_by: Type.String({ format: 'date-time', description: 'records received after it were not used' }),
    oldest_known: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'event time of the oldest data the answer could use (null: none was known by known_by)'
    }),
    before_data: Type.Boolean({
      description:
        'true when as_of lies before the oldest data known: the answer is as it was then (empty where nothing was known)'
    })
  },
  { description: 'present only when as_of was given' }
)
