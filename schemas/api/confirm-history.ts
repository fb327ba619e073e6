/**
 * @module
 * Parameter and response schemas of `GET /v1/confirm/history` (the confirm answers at past steps) and
 * `GET /v1/confirm/evaluation` (the walk-forward evaluation of those answers); docs/confirm.md.
 */
import { Type } from '@sinclair/typebox'
import { MOMENT_FORMS, MOMENT_PATTERN } from '../../engine/asof/point-in-time.js'
import { EVALUATION_BASES, MAX_EVALUATION_STEPS, MAX_HISTORY_STEPS } from '../../engine/evaluation/limits.js'
import { STEP_INTERVALS } from '../../engine/evaluation/steps.js'
import { ConfirmResponse } from './confirm.js'
import { EpochMsParam, symbolParam } from './history.js'
import { CsvParam, EnumParam, IntParam, StringParam } from './params.js'

const moment = (description: string, example: string) =>
  StringParam({ description, pattern: MOMENT_PATTERN, rule: MOMENT_FORMS, maxLength: 32, examples: [example] })

const DEPTH_RULE = "Rule: not before the plan's history depth (403 naming it), not in the future"

const EVALUATION_RANGE = `Rule: at most ${MAX_EVALUATION_STEPS.toLocaleString('en-US')} steps per market (90 days at 1h)`

const interval = EnumParam(STEP_INTERVALS, {
  description: 'time between steps; steps are whole multiples of it counted from the Unix epoch (1h: each UTC hour)',
  default: '1h'
})

export const ConfirmHistoryQuery = Type.Object(
  {
    symbol: symbolParam('the base asset; a pair or market names its base', undefined, false),
    direction: EnumParam(['long', 'short'] as const, { description: 'the idea confirmed at each step' }),
    start: moment(`first step at or after this moment (inclusive). ${DEPTH_RULE}`, '2026-01-01T00:00:00Z'),
    end: Type.Optional(
      moment(
        'steps before this moment (exclusive); default now. Rule: after start, not in the future',
        '2026-01-31T00:00:00Z'
      )
    ),
    interval: Type.Optional(interval),
    known_by: Type.Optional(
      moment(
        'use only records received by this fixed moment at every step (default: each step its own moment, what a live caller had then). Rule: not in the future',
        '2026-02-01T00:00:00Z'
      )
    ),
    limit: Type.Optional(
      IntParam(1, MAX_HISTORY_STEPS, {
        description: `steps per page, at most ${MAX_HISTORY_STEPS.toLocaleString('en-US')}; a longer range pages: pass next_cursor as cursor`,
        default: MAX_HISTORY_STEPS
      })
    ),
    cursor: Type.Optional(
      EpochMsParam(
        'next_cursor of the previous page. Rule: a step of the requested range (pass the same start, end and interval as the first page)'
      )
    )
  },
  { required: ['symbol', 'direction', 'start'] }
)

export const ConfirmHistoryRecord = Type.Object({
  timestamp: Type.Integer({ description: 'the step, epoch ms: the moment the answer is as of' }),
  ...ConfirmResponse.properties
})

export const ConfirmHistoryResponse = Type.Object({
  symbol: Type.String({ description: 'the base asset answered' }),
  direction: Type.String({ enum: ['long', 'short'] }),
  interval: Type.String({ enum: [...STEP_INTERVALS] }),
  known_by: Type.String({
    description: '"step" (each answer used what was received by its own step) or the fixed moment given, ISO 8601 UTC'
  }),
  data: Type.Array(ConfirmHistoryRecord, { description: 'one answer per step, oldest first' }),
  meta: Type.Object({
    start: Type.Integer({ description: 'first step of the page, epoch ms (inclusive)' }),
    end: Type.Integer({ description: 'end of the page, epoch ms (exclusive)' }),
    rows: Type.Integer({ description: 'answers in data' })
  }),
  next_cursor: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the next page first step, epoch ms (pass as cursor); null on the last page'
  })
})

export const ConfirmEvaluationQuery = Type.Object(
  {
    symbol: Type.Optional(
      symbolParam(
        `the base asset evaluated; default: the ${EVALUATION_BASES} bases of the plan with the highest quote volume in the range`,
        undefined,
        false
      )
    ),
    direction: Type.Optional(
      EnumParam(['long', 'short'] as const, { description: 'the idea evaluated at each step', default: 'long' })
    ),
    start: moment(
      `first step at or after this moment (inclusive). ${DEPTH_RULE}. ${EVALUATION_RANGE}`,
      '2026-01-01T00:00:00Z'
    ),
    end: Type.Optional(
      moment(
        `steps before this moment (exclusive); default: now, or start + ${MAX_EVALUATION_STEPS.toLocaleString('en-US')} steps when that is earlier. Rule: after start, not in the future`,
        '2026-01-31T00:00:00Z'
      )
    ),
    interval: Type.Optional(interval),
    known_by: Type.Optional(
      moment(
        'answers use only records received by this fixed moment at every step (default: each step its own moment, no lookahead). A later moment lets the evaluation use history imported after the fact. Rule: not in the future',
        '2026-02-01T00:00:00Z'
      )
    ),
    horizons: Type.Optional(
      CsvParam<string>(
        { type: 'string', pattern: '^[1-9][0-9]{0,5}[mhd]$', examples: ['1h', '4h', '24h'] },
        {
          description:
            'forward-return horizons; default 1h,4h,24h. Rule: each minutes, hours or days from 1m to 30d, at most 6',
          default: ['1h', '4h', '24h'],
          maxItems: 6
        }
      )
    )
  },
  { required: ['start'] }
)

const nullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })

const HorizonSummary = Type.Object({
  n: Type.Integer({ description: 'returns counted' }),
  mean: nullableNumber('mean forward return of the direction, fraction (0.01 = +1%); null when n = 0'),
  median: nullableNumber('median forward return, fraction; null when n = 0'),
  hit_rate: nullableNumber('share of returns above 0, 0 to 1; null when n = 0'),
  ci95: Type.Union([Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }), Type.Null()], {
    description: '95% confidence interval of the mean [low, high], normal approximation; null when n < 2'
  }),
  beyond_data: Type.Integer({ description: 'steps left out: step + horizon after the newest stored candle' }),
  no_price: Type.Integer({ description: 'steps left out: no candle at the step or at step + horizon' })
})

const Group = Type.Object({
  action: Type.String({ enum: ['CONFIRM', 'REDUCE', 'SKIP', 'ALWAYS_CONFIRM'] }),
  confidence: Type.Union([Type.String({ enum: ['HIGH', 'MEDIUM'] }), Type.Null()]),
  answers: Type.Integer({ description: 'steps in the group' }),
  horizons: Type.Record(Type.String(), HorizonSummary, { description: 'keyed by horizon, in the order asked' })
})

export const ConfirmEvaluationResponse = Type.Object({
  direction: Type.String({ enum: ['long', 'short'] }),
  interval: Type.String({ enum: [...STEP_INTERVALS] }),
  known_by: Type.String({
    description: '"step" (each answer used what was received by its own step) or the fixed moment given, ISO 8601 UTC'
  }),
  horizons: Type.Array(Type.String()),
  start: Type.Integer({ description: 'first step, epoch ms' }),
  end: Type.Integer({ description: 'steps before it, epoch ms (exclusive)' }),
  steps: Type.Integer({ description: 'steps per market' }),
  markets: Type.Array(Type.Object({ base: Type.String(), exchange: Type.String(), symbol: Type.String() }), {
    description: 'the markets evaluated, each base priced from its default market'
  }),
  price_timeframe: Type.String({ description: 'candles the forward returns are read from' }),
  interval_method: Type.String({ description: 'how ci95 is computed' }),
  groups: Type.Array(Group, { description: 'each action and confidence, including empty ones' }),
  baseline: Group
})
