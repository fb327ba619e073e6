/**
 * The background slices of the hot reads bench (bench/http/perf-stalls.ts): consecutive samples outside the
 * request path make one slice, measured in CPU time (samples x period) and named by the project code that
 * ran most of it.
 */
import { describe, expect, it } from 'vitest'
import { perfSamples, perfStalls } from '../../bench/http/perf-stalls.js'

const HANDLER = 'large_handler<uWS_App_get<uWS::TemplatedApp<false>>>::call+0xf4'
/** one `perf script` sample of 0.5 ms (period in ns) taken at `at` (s), frames leaf first */
const sample = (frames: readonly string[], at = '66255.593874'): string =>
  `node  9320 ${at}:     500000 cpu-clock:ppp: \n${frames.map((f) => `\t    7f5b ${f}`).join('\n')}\n`
const request = sample(['JS:*match file:///x/dist/server/router.js:57:10', HANDLER])
const signalPass = sample([
  'JS:*flows24h file:///x/dist/engine/live/whale-window.js:111:10',
  'JS:^pass file:///x/dist/engine/signals/signal-engine.js:138:15',
  'uv__run_timers+0x22'
])
const scavenge = sample(['v8::internal::Heap::Scavenge+0x1', 'uv__run_check+0x1'])

describe('perf stalls', () => {
  it('joins consecutive background samples into one slice and names it by its outermost project frame', () => {
    const text = [request, signalPass, signalPass, signalPass, signalPass, scavenge, request, scavenge, request].join(
      '\n'
    )
    const s = perfStalls(perfSamples(text), 1)
    // one slice of 5 samples (2.5 ms: 4 of the pass, 1 GC) and one of 1 sample (0.5 ms)
    expect(s.longest_ms).toBe(2.5)
    expect(s.per_s).toEqual({ '>=0.5ms': 2, '>=1ms': 1, '>=2ms': 1, '>=5ms': 0, '>=10ms': 0 })
    expect(s.ms_per_s_over_1ms).toBe(2.5)
    expect(s.by_name).toEqual({ 'pass engine/signals/signal-engine.js': { per_s: 1, ms_per_s: 2.5, longest_ms: 2.5 } })
  })

  it('ends a slice where the thread was off the CPU (idle or descheduled between two samples)', () => {
    const pass = (at: string): string =>
      sample(['JS:^pass file:///x/dist/engine/signals/signal-engine.js:138:15', 'uv__run_timers+0x22'], at)
    // 0.5 ms apart: on the CPU throughout, one slice of 1.5 ms; then 5 ms later (off the CPU): a slice of its own
    const text = [pass('100.000000'), pass('100.000500'), pass('100.001000'), pass('100.006000')].join('\n')
    const s = perfStalls(perfSamples(text), 1)
    expect(s.longest_ms).toBe(1.5)
    expect(s.per_s).toEqual({ '>=0.5ms': 2, '>=1ms': 1, '>=2ms': 0, '>=5ms': 0, '>=10ms': 0 })
  })
})
