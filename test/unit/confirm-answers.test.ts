/**
 * The live confirmation answers' freshness rule (engine/live/confirm-answers.ts), on a clock the test moves:
 * an answer is reused for records of other bases, for records of its own base until ANSWER_REFRESH_MS, and
 * never past ANSWER_TTL_MS; what it serves equals a fresh computation; a rebuild changes every base.
 */
import { describe, expect, it } from 'vitest'
import { confirm } from '../../engine/confirm/confirm.js'
import {
  ANSWER_REFRESH_MS,
  ANSWER_TTL_MS,
  ConfirmAnswers,
  type ConfirmAnswer
} from '../../engine/live/confirm-answers.js'
import { buildConfirmInputs } from '../../engine/live/confirm-inputs.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { FundingRecord, NormalizedRecord } from '../../engine/records/types.js'
import type { Store } from '../../engine/store/store.js'

/** The funding history's store: no stored history (the live books carry the inputs). */
const EMPTY_STORE = { kind: 'chdb', query: async () => [] } as unknown as Store

function funding(base: string, rate: number, ts: number): FundingRecord {
  return {
    kind: 'funding',
    ts,
    exchange: 'binance',
    symbol: `${base}USDT`,
    base,
    funding_rate: rate,
    interval_hours: 8
  }
}

/** A live state fed through its own apply path, and an answer cache on a clock the test sets. */
function setup(): {
  live: LiveState
  answers: ConfirmAnswers
  clock: { now: number }
  feed: (r: NormalizedRecord[]) => void
} {
  const live = new LiveState(EMPTY_STORE)
  const clock = { now: Date.now() }
  const answers = new ConfirmAnswers(live, () => clock.now)
  const feed = async (records: NormalizedRecord[]): Promise<void> => {
    live.apply(records)
  }
  return { live, answers, clock, feed }
}

const fundingOf = (a: ConfirmAnswer): number =>
  (JSON.parse(a.bytes.toString()) as { derivatives: { funding_rate: number } }).derivatives.funding_rate

describe('confirm answers: freshness rule', () => {
  it('serves bytes equal to a fresh computation of the same moment', async () => {
    const { live, answers, clock, feed } = setup()
    feed([funding('BTC', 0.0003, clock.now - 1_000)])
    const a = await answers.get('BTC', 'long')
    const inputs = await buildConfirmInputs('BTC', a.at, live)
    const expected = Buffer.from(JSON.stringify(confirm('BTC', 'long', inputs, a.at)))
    expect(a.bytes.equals(expected)).toBe(true)
    expect(a.result.ts).toBe(Math.floor(a.at / 1000)) // the answer carries when it was computed
    expect(answers.get('BTC', 'long')).toBe(a) // a hit: the same answer object, synchronously
  })

  it('reuses an answer for records of other bases and option quotes, until ANSWER_TTL_MS', async () => {
    const { answers, clock, feed } = setup()
    feed([funding('BTC', 0.0001, clock.now - 1_000), funding('ETH', 0.0001, clock.now - 1_000)])
    const a = await answers.get('BTC', 'long')
    const computed = answers.computed
    feed([funding('ETH', 0.0009, clock.now)])
    clock.now += ANSWER_TTL_MS - 1
    expect(answers.get('BTC', 'long')).toBe(a)
    expect(answers.computed).toBe(computed)
    clock.now += 1 // the 24 h windows slide: recomputed even though no BTC input changed
    const b = answers.get('BTC', 'long')
    expect(b).toBeInstanceOf(Promise)
    expect((await b).at).toBe(clock.now)
  })

  it("reflects a record of the answer's base once the answer is ANSWER_REFRESH_MS old, and not before", async () => {
    const { answers, clock, feed } = setup()
    feed([funding('BTC', 0.0001, clock.now - 1_000)])
    const a = await answers.get('BTC', 'long')
    feed([funding('BTC', 0.0005, clock.now)])
    clock.now += ANSWER_REFRESH_MS - 1
    expect(answers.get('BTC', 'long')).toBe(a) // within the bound: the cached answer
    expect(fundingOf(a)).toBe(0.0001)
    clock.now += 1
    const b = await answers.get('BTC', 'long')
    expect(fundingOf(b)).toBe(0.0005)
    expect(b.at).toBe(clock.now)
    // the other direction of the base is its own answer under the same rule
    expect(fundingOf(await answers.get('BTC', 'short'))).toBe(0.0005)
  })

  it('a request after a base change never joins a computation older than ANSWER_REFRESH_MS', async () => {
    let open: () => void = () => undefined
    const gate = new Promise<void>((r) => (open = r))
    const gated = { kind: 'chdb', query: async () => (await gate, []) } as unknown as Store
    const live = new LiveState(gated)
    const clock = { now: Date.now() }
    const answers = new ConfirmAnswers(live, () => clock.now)
    live.apply([funding('BTC', 0.0001, clock.now - 1_000)])
    const before = answers.get('BTC', 'long') // waits on the funding history
    expect(answers.get('BTC', 'long')).toBe(before) // joined: nothing changed
    live.apply([funding('BTC', 0.0007, clock.now)])
    expect(answers.get('BTC', 'long')).toBe(before) // changed, but the computation is younger than the bound
    clock.now += ANSWER_REFRESH_MS
    const after = answers.get('BTC', 'long')
    expect(after).not.toBe(before)
    open()
    expect(fundingOf(await before)).toBe(0.0001) // the books as the computation started
    expect(fundingOf(await after)).toBe(0.0007)
    // the newer computation's answer is the one cached, whichever finished last
    expect(answers.get('BTC', 'long')).toBe(await after)
  })

  it('a rebuild of the live state changes every base', async () => {
    const { live, answers, clock, feed } = setup()
    feed([funding('BTC', 0.0001, clock.now - 1_000)])
    const a = await answers.get('BTC', 'long')
    clock.now += ANSWER_REFRESH_MS
    expect(answers.get('BTC', 'long')).toBe(a)
    live.changes.all()
    expect(answers.get('BTC', 'long')).toBeInstanceOf(Promise)
  })
})
