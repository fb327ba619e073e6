/**
 * @module
 * The documented limits of `GET /v1/confirm/history` and `/v1/confirm/evaluation` (docs/confirm.md).
 */
export { EVALUATION_BASES } from './bases.js'

/** Steps per /v1/confirm/history page: 41 days at 1h; a longer range pages with the cursor. */
export const MAX_HISTORY_STEPS = 1_000

/** Steps per market one evaluation covers: 90 days at 1h, or 7.5 days at 5m. */
export const MAX_EVALUATION_STEPS = 2_160
