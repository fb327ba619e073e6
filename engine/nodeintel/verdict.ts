/**
 * @module
 * What a probe result means: taxes in percent, the step outcomes, the verdict and its reasons.
 *
 * Taxes (percent of what should have arrived; docs/node-intel.md "Honeypot check"):
 * - buy: (router quote − tokens received) / quote. The quote already includes the DEX's LP fee.
 * - sell: the larger of (tokens sold − tokens that reached the pair) / tokens sold (exact), and
 *   (router quote − native received) / quote (the quote of the full amount slightly under-reports a tax,
 *   x·y=k being concave; the pair measure misses a tax paid out of the seller's remaining balance).
 * - transfer: (sent − received by the fresh address) / sent.
 *
 * Verdicts, in order: `no_liquidity` (no pair with the wrapped native, or an empty one), `unknown` (the
 * buy itself failed: trading disabled or a bot gate; not proof of a honeypot), `honeypot` (the approve or
 * the sell reverted, the sell returned nothing, or the sell tax is at least NODEINTEL_HONEYPOT_TAX_PCT),
 * `high_tax` (any tax above NODEINTEL_HIGH_TAX_PCT), else `ok`. Half the balance selling while all of it
 * does not (a max-sell limit) is a reason (SELL_ALL_BLOCKED), not a verdict of its own.
 */
import type { ProbeResult, ProbeStep } from './probe.js'
import { revertReason } from './revert-reason.js'

export type Verdict = 'ok' | 'high_tax' | 'honeypot' | 'no_liquidity' | 'unknown'

/** The reason given when half the balance sells but all of it does not (a max-sell limit); risk.ts reads it. */
export const SELL_ALL_BLOCKED = 'selling the whole balance at once reverted (half of it sold)'

export interface Simulation {
  readonly buy_ok: boolean
  readonly sell_ok: boolean
  readonly transfer_ok: boolean
  readonly buy_tax_pct: number | null
  readonly sell_tax_pct: number | null
  readonly transfer_tax_pct: number | null
  readonly buy_gas: number | null
  readonly sell_gas: number | null
  readonly transfer_gas: number | null
  /** the first failing step's reason, prefixed with the step (`sell: sells disabled`) */
  readonly revert_reason: string | null
}

export interface Judgement {
  readonly verdict: Verdict
  readonly isHoneypot: boolean | null
  /** null when there was nothing to trade (no pair) */
  readonly simulation: Simulation | null
  readonly reasons: string[]
}

export interface Thresholds {
  readonly highTaxPct: number
  readonly honeypotTaxPct: number
}

/** share of `expected` that did not arrive, percent with 4 decimals; null when nothing was expected */
export function taxPct(expected: bigint, received: bigint): number | null {
  if (expected <= 0n) return null
  const lost = expected > received ? expected - received : 0n
  return Number((lost * 1_000_000n) / expected) / 10_000
}

const gas = (s: ProbeStep, ran: boolean): number | null => (ran ? Number(s.gasUsed) : null)

export function judge(r: ProbeResult, t: Thresholds): Judgement {
  const zero = /^0x0{40}$/i.test(r.pair)
  if (zero || r.reserveBase === 0n || r.reserveToken === 0n || r.amountIn === 0n) {
    return {
      verdict: 'no_liquidity',
      isHoneypot: null,
      simulation: null,
      reasons: [zero ? 'no pair with the wrapped native on the configured DEX' : 'the pair holds no liquidity']
    }
  }
  const bought = r.buy.ok && r.buy.received > 0n
  const sellRan = bought && r.sellSent > 0n
  const xferRan = bought && r.xfer.expected > 0n
  const buyTax = bought ? taxPct(r.buy.expected, r.buy.received) : null
  let sellTax: number | null = null
  if (sellRan && r.sell.ok) {
    const byPair = taxPct(r.sellSent, r.pairReceived)
    const byQuote = taxPct(r.sell.expected, r.sell.received)
    sellTax = Math.max(byPair ?? 0, byQuote ?? 0)
  }
  const xferTax = xferRan && r.xfer.ok ? taxPct(r.xfer.expected, r.xfer.received) : null
  const reasons: string[] = []
  let revert: string | null = null
  const fail = (step: string, s: ProbeStep): void => {
    const why = revertReason(s.err)
    revert ??= `${step}: ${why}`
    reasons.push(`${step} reverted: ${why}`)
  }
  let verdict: Verdict
  if (!bought) {
    if (!r.buy.ok) fail('buy', r.buy)
    else reasons.push('the buy delivered no tokens')
    verdict = 'unknown'
  } else {
    if (!r.approveOk) reasons.push('approve of the router failed')
    if (!r.sell.ok) fail('sell', r.sell)
    else if (r.sell.received === 0n) reasons.push('the sell returned nothing')
    if (xferRan && !r.xfer.ok) fail('transfer', r.xfer)
    if (r.sell.ok && r.sell.received > 0n && !r.sellAllOk) reasons.push(SELL_ALL_BLOCKED)
    const honeypot =
      !r.approveOk || !r.sell.ok || r.sell.received === 0n || (sellTax !== null && sellTax >= t.honeypotTaxPct)
    if (sellTax !== null && sellTax >= t.honeypotTaxPct) reasons.push(`sell tax ${sellTax}% >= ${t.honeypotTaxPct}%`)
    const high = [
      ['buy', buyTax],
      ['sell', sellTax],
      ['transfer', xferTax]
    ].filter(([, v]) => v !== null && (v as number) > t.highTaxPct) as [string, number][]
    if (!honeypot) for (const [k, v] of high) reasons.push(`${k} tax ${v}% > ${t.highTaxPct}%`)
    verdict = honeypot ? 'honeypot' : high.length > 0 ? 'high_tax' : 'ok'
  }
  return {
    verdict,
    isHoneypot: verdict === 'unknown' ? null : verdict === 'honeypot',
    reasons,
    simulation: {
      buy_ok: bought,
      sell_ok: sellRan && r.sell.ok && r.sell.received > 0n,
      transfer_ok: xferRan && r.xfer.ok,
      buy_tax_pct: buyTax,
      sell_tax_pct: sellTax,
      transfer_tax_pct: xferTax,
      buy_gas: gas(r.buy, true),
      sell_gas: gas(r.sell, sellRan),
      transfer_gas: gas(r.xfer, xferRan),
      revert_reason: revert
    }
  }
}

/** The start of every reason that says a step failed for the probe contract but not for the wallet. */
export const CONTRACT_ONLY = 'contract-only behaviour:'

/**
 * What the token refused the probe contract but not the wallet (buy, sell or transfer): the token treats
 * addresses with code, or one transaction doing every step in one block, differently from a wallet. The
 * constructor probe stands for the wallet where the node has no eth_simulateV1.
 */
export function contractOnlyReasons(
  wallet: ProbeResult,
  contract: ProbeResult,
  /** who passed, for the text */
  passer = "the wallet's"
): string[] {
  const out: string[] = []
  const walletBought = wallet.buy.ok && wallet.buy.received > 0n
  const contractBought = contract.buy.ok && contract.buy.received > 0n
  const refused = (step: string, s: ProbeStep): void => {
    out.push(`${CONTRACT_ONLY} the probe contract's ${step} reverted (${revertReason(s.err)}) where ${passer} passed`)
  }
  if (walletBought && !contractBought) {
    if (!contract.buy.ok) refused('buy', contract.buy)
    else out.push(`${CONTRACT_ONLY} the probe contract's buy delivered nothing where ${passer} delivered tokens`)
    return out
  }
  if (!walletBought) return out
  if (wallet.sell.ok && wallet.sell.received > 0n && !contract.sell.ok) refused('sell', contract.sell)
  if (wallet.xfer.ok && contract.xfer.expected > 0n && !contract.xfer.ok) refused('transfer', contract.xfer)
  return out
}
