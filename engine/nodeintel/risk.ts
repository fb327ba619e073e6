/**
 * @module
 * The token risk score: 0 (nothing found) to 100, the sum of the weights of the factors that apply,
 * clamped; a honeypot is 100. Levels: low < 20 <= medium < 50 <= high < 80 <= critical. Each factor
 * carries its weight and the evidence it rests on. The table and a worked example are in docs/node-intel.md;
 * change both together.
 */
import type { HoneypotReport } from './honeypot-report.js'
import type { ContractAge } from './contract-age.js'
import type { PairFacts, TokenFacts } from './token-facts.js'
import type { SelectorGroup } from './bytecode.js'
import { GROUP_LABELS } from './owner-selectors.js'
import { SELL_ALL_BLOCKED } from './verdict.js'

export type RiskLevel = 'low' | 'medium' | 'high' | 'critical'

export interface RiskFactor {
  readonly id: string
  /** points added to the score */
  readonly weight: number
  readonly evidence: string
}

/** Factor weights (docs/node-intel.md, "Risk score"). */
export const WEIGHTS = {
  honeypot: 100,
  cannot_buy: 40,
  no_liquidity: 30,
  high_sell_tax: 30,
  high_buy_tax: 15,
  high_transfer_tax: 10,
  transfer_blocked: 20,
  cannot_sell_all: 20,
  has_taxes: 5,
  simulation_unavailable: 10,
  owner_not_renounced: 10,
  owner_can_mint: 15,
  owner_can_blacklist: 15,
  owner_can_set_fees: 10,
  owner_can_pause: 10,
  owner_can_limit_tx: 5,
  owner_can_switch_contract_transfers: 5,
  upgradeable_proxy: 15,
  selfdestruct: 20,
  delegatecall: 10,
  low_liquidity: 15,
  lp_not_burned_or_locked: 10,
  owner_concentration: 10,
  new_contract: 10,
  young_contract: 5
} as const

/** Pools worth less than this are `low_liquidity`, USD (both sides). */
export const LOW_LIQUIDITY_USD = 10_000
/** Without a USD price: a native side below this many coins is `low_liquidity`. */
export const LOW_LIQUIDITY_NATIVE = 10
/** LP tokens burned (0x0, 0x…dEaD) or held by a configured locker below this share, percent: `lp_not_burned_or_locked`. */
export const LP_BURNED_MIN_PCT = 90
/** The owner holding more than this share of the supply, percent, is `owner_concentration`. */
export const OWNER_MAX_PCT = 20
const DAY_MS = 86_400_000

/**
 * Owner-power factors: the selector groups (owner-selectors.ts) each one rests on; the evidence names each
 * group found by its GROUP_LABELS label. They apply while the owner is not renounced, or when the token has
 * no owner function.
 */
const OWNER_POWER_FACTORS: readonly (readonly [keyof typeof WEIGHTS, readonly SelectorGroup[]])[] = [
  ['owner_can_mint', ['mint']],
  ['owner_can_blacklist', ['blacklist']],
  ['owner_can_set_fees', ['fee_setter', 'fee_exclusion']],
  ['owner_can_pause', ['pause', 'trading_switch']],
  ['owner_can_limit_tx', ['max_tx', 'cooldown']],
  ['owner_can_switch_contract_transfers', ['contract_switch']]
]

export function riskLevel(score: number): RiskLevel {
  return score >= 80 ? 'critical' : score >= 50 ? 'high' : score >= 20 ? 'medium' : 'low'
}

export interface RiskInputs {
  readonly honeypot: HoneypotReport
  readonly facts: TokenFacts
  readonly pair: PairFacts
  readonly age: ContractAge | null
  readonly highTaxPct: number
  readonly nowMs: number
}

export function riskFactors(i: RiskInputs): RiskFactor[] {
  const out: RiskFactor[] = []
  const add = (id: keyof typeof WEIGHTS, evidence: string): void => {
    out.push({ id, weight: WEIGHTS[id], evidence })
  }
  const h = i.honeypot
  const s = h.simulation
  if (h.verdict === 'honeypot') add('honeypot', h.reasons.join('; ') || 'the simulated sell failed')
  if (h.method === 'bytecode_only')
    add('simulation_unavailable', 'the node refuses state overrides: no buy/sell simulation')
  if (h.verdict === 'no_liquidity') add('no_liquidity', h.reasons[0] ?? 'no pair with the wrapped native')
  if (h.verdict === 'unknown' && h.method !== 'bytecode_only' && s && !s.buy_ok)
    add('cannot_buy', s.revert_reason ?? 'the simulated buy delivered no tokens')
  if (s) {
    const tax = (v: number | null): boolean => v !== null && v > i.highTaxPct
    if (tax(s.sell_tax_pct) && h.verdict !== 'honeypot') add('high_sell_tax', `sell tax ${s.sell_tax_pct}%`)
    if (tax(s.buy_tax_pct)) add('high_buy_tax', `buy tax ${s.buy_tax_pct}%`)
    if (tax(s.transfer_tax_pct)) add('high_transfer_tax', `transfer tax ${s.transfer_tax_pct}%`)
    const taxes = [s.buy_tax_pct, s.sell_tax_pct, s.transfer_tax_pct].filter((v): v is number => v !== null)
    if (taxes.some((v) => v >= 0.5) && !taxes.some((v) => v > i.highTaxPct))
      add('has_taxes', `taxes buy ${s.buy_tax_pct}% / sell ${s.sell_tax_pct}% / transfer ${s.transfer_tax_pct}%`)
    if (h.reasons.includes(SELL_ALL_BLOCKED)) add('cannot_sell_all', SELL_ALL_BLOCKED)
    if (s.buy_ok && !s.transfer_ok && h.verdict !== 'honeypot')
      add('transfer_blocked', s.revert_reason ?? 'the transfer to a fresh address failed')
  }
  const m = i.facts.metadata
  const ownerLive = m.owner !== null && m.owner_renounced === false
  if (ownerLive) add('owner_not_renounced', `owner() is ${m.owner}`)
  const groups = mergedGroups(i.facts)
  if (ownerLive || m.owner === null) {
    for (const [id, parts] of OWNER_POWER_FACTORS) {
      const found = parts.flatMap((g) => (groups[g]?.length ? [`${GROUP_LABELS[g]}: ${groups[g].join(', ')}`] : []))
      if (found.length > 0) add(id, found.join('; '))
    }
  }
  if (i.facts.proxyKind) {
    add('upgradeable_proxy', `${i.facts.proxyKind} proxy; implementation ${i.facts.implementation ?? 'unknown'}`)
  } else if (groups.upgrade) add('upgradeable_proxy', `upgrade functions: ${groups.upgrade.join(', ')}`)
  const code = [i.facts.code, i.facts.implementationCode].filter((c) => c !== null)
  if (code.some((c) => c.selfdestruct)) add('selfdestruct', 'the code contains SELFDESTRUCT')
  if (!i.facts.proxyKind && code.some((c) => c.delegatecall))
    add('delegatecall', 'the code contains DELEGATECALL / CALLCODE')
  const liq = h.liquidity
  if (liq) {
    const low = liq.usd !== null ? liq.usd < LOW_LIQUIDITY_USD : Number(liq.reserve_base) < LOW_LIQUIDITY_NATIVE
    if (low)
      add(
        'low_liquidity',
        liq.usd !== null
          ? `pool worth $${liq.usd} (< $${LOW_LIQUIDITY_USD})`
          : `${liq.reserve_base} ${liq.base_symbol} in the pool`
      )
  }
  if (i.pair.lpBurnedPct !== null && h.pair) {
    const locked = i.pair.lpLockedPct ?? 0
    if (i.pair.lpBurnedPct + locked < LP_BURNED_MIN_PCT) {
      const lockers = i.pair.lpLockedPct === null ? 'no LP lockers configured' : `${locked}% locked`
      add(
        'lp_not_burned_or_locked',
        `${i.pair.lpBurnedPct}% of the LP supply burned, ${lockers} (< ${LP_BURNED_MIN_PCT}% together)`
      )
    }
  }
  if (i.pair.ownerPct !== null && i.pair.ownerPct > OWNER_MAX_PCT)
    add('owner_concentration', `the owner holds ${i.pair.ownerPct}% of the supply`)
  if (i.age) {
    const ageMs = i.nowMs - i.age.timestampMs
    if (ageMs < DAY_MS) add('new_contract', `created ${Math.round(ageMs / 60_000)} min ago (block ${i.age.block})`)
    else if (ageMs < 7 * DAY_MS)
      add('young_contract', `created ${(ageMs / DAY_MS).toFixed(1)} days ago (block ${i.age.block})`)
  }
  return out
}

function mergedGroups(f: TokenFacts): Partial<Record<SelectorGroup, string[]>> {
  const out: Partial<Record<SelectorGroup, string[]>> = {}
  for (const scan of [f.code, f.implementationCode]) {
    if (!scan) continue
    for (const [g, sigs] of Object.entries(scan.groups) as [SelectorGroup, string[]][]) {
      const list = (out[g] ??= [])
      for (const sig of sigs) if (!list.includes(sig)) list.push(sig)
    }
  }
  return out
}

export function riskScore(factors: readonly RiskFactor[]): number {
  return Math.min(
    100,
    factors.reduce((s, f) => s + f.weight, 0)
  )
}
