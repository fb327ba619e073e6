/**
 * @module
 * The `as_of` side of the point-in-time endpoints (/v1/confirm, /v1/derivatives/screener,
 * /v1/whales/summary, /v1/onchain/metrics): the endpoint's usual answer computed as of the point in time
 * plus its `point_in_time` member, cached per endpoint (engine/asof/answer-cache.ts).
 */
import { AsOfCache } from '../../engine/asof/answer-cache.js'
import type { KnownAtTable } from '../../engine/asof/known-at.js'
import { oldestOf } from '../../engine/asof/oldest.js'
import { pointInTimeInfo, type PointInTime } from '../../engine/asof/point-in-time.js'
import type { Store } from '../../engine/store/store.js'
import { JSON_HEADERS, type HttpResponse } from '../http/types.js'

/** The parameters of a request other than the moments, in a stable order: the cache key's middle part. */
function paramsKey(q: Readonly<Record<string, unknown>>): string {
  const rest = Object.keys(q)
    .filter((k) => k !== 'as_of' && k !== 'known_by' && k !== 'source')
    .sort()
    .map((k) => [k, q[k]])
  return JSON.stringify(rest)
}

export interface AsOfAnswers {
  /**
   * The answer as of `pit`: `compute` gives the endpoint's usual object (keys in its usual order), to which
   * `point_in_time` is added; `tables` are the raw tables its data comes from (for `oldest_known`).
   */
  answer(
    q: Readonly<Record<string, unknown>>,
    pit: PointInTime,
    compute: () => Promise<object>
  ): HttpResponse | Promise<HttpResponse>
}

export function asOfAnswers(store: Store, endpoint: string, tables: readonly KnownAtTable[]): AsOfAnswers {
  const cache = new AsOfCache<HttpResponse>()
  return {
    answer: (q, pit, compute) =>
      cache.get(`${endpoint}|${paramsKey(q)}`, pit, async () => {
        const [value, oldest] = await Promise.all([compute(), oldestOf(store, tables, pit.knownByMs)])
        const body = Buffer.from(JSON.stringify({ ...value, point_in_time: pointInTimeInfo(pit, oldest) }))
        return { status: 200, headers: JSON_HEADERS, body }
      })
  }
}
