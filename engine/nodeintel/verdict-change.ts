/**
 * @module
 * What a re-check compares: the verdict and taxes of two honeypot checks of one token. A change is a
 * different verdict, or a buy, sell or transfer tax that moved by more than the threshold (percentage
 * points, NODEINTEL_RECHECK_TAX_DELTA_PCT) or that appeared or disappeared (a step that ran before and
 * reverts now, or the reverse).
 */
import type { Address, Hex } from 'viem'
import type { HoneypotReport } from './honeypot-report.js'
import type { Verdict } from './verdict.js'

/** One check's outcome as the verdict history keeps it. */
export interface VerdictPoint {
  readonly verdict: Verdict
  readonly is_honeypot: boolean | null
  readonly method: HoneypotReport['method']
  /** percent, null when the step did not run or reverted */
  readonly buy_tax_pct: number | null
  readonly sell_tax_pct: number | null
  readonly transfer_tax_pct: number | null
  /** the head block the check ran at */
  readonly block_number: number
  /** ISO 8601 UTC */
  readonly checked_at: string
  readonly reasons: readonly string[]
}

/** What made the service check a token again. */
export interface RecheckTrigger {
  /** watch: the first check when a token joins the watch list; owner_tx: its owner sent it a transaction; log: it emitted a watched event */
  readonly kind: 'watch' | 'owner_tx' | 'log'
  /** the transaction that triggered it (null for `watch`) */
  readonly tx_hash: Hex | null
  readonly block_number: number | null
  /** the event signature of a `log` trigger, or the 4-byte selector the owner called (`0x…`, null for a plain transfer of value) */
  readonly detail: string | null
  /** who sent the triggering transaction (null for `watch` and `log`) */
  readonly from: Address | null
}

export type TaxField = 'buy_tax_pct' | 'sell_tax_pct' | 'transfer_tax_pct'
export type ChangedField = 'verdict' | TaxField

const TAXES: readonly TaxField[] = ['buy_tax_pct', 'sell_tax_pct', 'transfer_tax_pct']

export function pointOf(r: HoneypotReport): VerdictPoint {
  return {
    verdict: r.verdict,
    is_honeypot: r.is_honeypot,
    method: r.method,
    buy_tax_pct: r.simulation?.buy_tax_pct ?? null,
    sell_tax_pct: r.simulation?.sell_tax_pct ?? null,
    transfer_tax_pct: r.simulation?.transfer_tax_pct ?? null,
    block_number: r.block_number,
    checked_at: r.checked_at,
    reasons: r.reasons
  }
}

/** The fields that changed from `before` to `after` (empty: nothing worth recording). */
export function changesBetween(before: VerdictPoint, after: VerdictPoint, taxDeltaPct: number): ChangedField[] {
  const out: ChangedField[] = []
  if (before.verdict !== after.verdict) out.push('verdict')
  for (const f of TAXES) {
    const a = before[f]
    const b = after[f]
    if (a === null && b === null) continue
    if (a === null || b === null || Math.abs(a - b) > taxDeltaPct) out.push(f)
  }
  return out
}
