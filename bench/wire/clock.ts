/**
 * @module
 * The wire benchmark's clock: CLOCK_MONOTONIC through `process.hrtime`, in fractional ms. On Linux it is
 * one clock for every process of the machine (time since boot), so a send time read in the venue process
 * and a receive time read in a subscriber process subtract directly, with ns resolution and no step when
 * the wall clock is adjusted. (`performance.timeOrigin + performance.now()` would also be shared, but each
 * process samples its origin from the wall clock once at start, which adds that sampling's error.)
 */
export const monoMs = (): number => Number(process.hrtime.bigint()) / 1e6
