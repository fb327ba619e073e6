/**
 * An OKX normalizer with the fixture instruments discovered (okx-fixtures.ts), and one message through it
 * (every record it gives checked by the ingest validation), for the normalizer's unit tests. `T`: the
 * fixtures' clock, ms.
 */
import { expect } from 'vitest'
import type { NormalizedRecord } from '../../../engine/records/types.js'
import { validateRecord } from '../../../engine/records/validate.js'
import { OkxNormalizer } from '../../../ingest/normalize/okx.js'
import { INSTRUMENTS, push } from './okx-fixtures.js'

export const T = 1732270000000
export const HOUR = 3_600_000
export const INSTRUMENTS_PATH = '/api/v5/public/instruments?instType=SWAP'

export function setup(): OkxNormalizer {
  const n = new OkxNormalizer()
  expect(n.normalize(INSTRUMENTS_PATH, INSTRUMENTS, T, [])).toBe('ok')
  return n
}

export function run(n: OkxNormalizer, channel: string, msg: unknown): { outcome: string; records: NormalizedRecord[] } {
  const records: NormalizedRecord[] = []
  const outcome = n.normalize(channel, msg, T, records)
  for (const r of records) expect(validateRecord(r.kind, r), r.kind).toMatchObject({ ok: true })
  return { outcome, records }
}

export const ws = (channel: string, instId: string, rows: unknown[]) => push({ channel, instId }, rows)
export type Row = Record<string, unknown>
