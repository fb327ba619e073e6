/**
 * The HTTP benchmarks' reading of wrk's `--latency` report (bench/http/load.ts): req/s, requests, the 50th
 * and 99th percentiles in ms whatever unit wrk printed, socket errors and non-2xx answers.
 */
import { describe, expect, it } from 'vitest'
import { parseWrk, wrkDurationMs } from '../../bench/http/load.js'

/** A wrk 4.1.0 report as printed (one thread, 64 connections, a loaded machine). */
const LOADED = `Running 20s test @ http://127.0.0.1:19301/v1/confirm?symbol=BTC&direction=long
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    45.80ms   72.15ms 651.41ms   89.44%
    Req/Sec     2.88k     3.41k   15.94k    83.33%
  Latency Distribution
     50%   16.37ms
     75%   57.53ms
     90%  121.93ms
     99%  358.36ms
  51779 requests in 20.08s, 50.27MB read
Requests/sec:   2579.13
Transfer/sec:      2.50MB
`

/** The same report shape with microsecond and second percentiles, socket errors and refusals. */
const MIXED = `Running 8s test @ http://127.0.0.1:19202/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   412.10us  300.22us   1.20s    95.10%
    Req/Sec   150.12k    10.01k  170.00k    80.00%
  Latency Distribution
     50%  301.00us
     75%  420.00us
     90%  600.00us
     99%    1.02s
  1201000 requests in 8.00s, 1.10GB read
  Socket errors: connect 0, read 12, write 1, timeout 3
  Non-2xx or 3xx responses: 5
Requests/sec: 150125.00
Transfer/sec:    140.00MB
`

describe('wrk report', () => {
  it('reads rates, percentiles in ms and the absence of errors', () => {
    expect(parseWrk(LOADED)).toEqual({
      req_per_s: 2579,
      requests: 51779,
      p50_ms: 16.37,
      p99_ms: 358.36,
      errors: 0,
      non2xx: 0
    })
  })

  it('converts us and s to ms and counts socket errors and non-2xx answers', () => {
    const r = parseWrk(MIXED)
    expect(r.req_per_s).toBe(150125)
    expect(r.requests).toBe(1201000)
    expect(r.p50_ms).toBeCloseTo(0.301, 6)
    expect(r.p99_ms).toBe(1020)
    expect(r.errors).toBe(16)
    expect(r.non2xx).toBe(5)
  })

  it('reads minutes and refuses text without a duration', () => {
    expect(wrkDurationMs('2.00m')).toBe(120_000)
    expect(wrkDurationMs('n/a')).toBeNaN()
  })
})
