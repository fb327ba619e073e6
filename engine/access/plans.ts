/**
 * @module
 * Plans and what they include (service spec "Limits"; issue 3). Calls per UTC day, symbols, history depth
 * and features. A feature a plan lacks answers 403 naming the cheapest plan that has it.
 */

export type PlanName = 'free' | 'trader' | 'pro' | 'enterprise'
export const PLAN_NAMES: readonly PlanName[] = ['free', 'trader', 'pro', 'enterprise']

export type Feature =
  | 'options'
  | 'whales'
  | 'confirm'
  | 'history'
  | 'usage'
  | 'screener'
  | 'onchain'
  | 'stream'
  | 'export'
  | 'webhooks'
  | 'nodeintel'

export interface Plan {
  readonly name: PlanName
  /** calls per UTC day; null = unlimited */
  readonly callsPerDay: number | null
  /** base assets the plan may query; null = all */
  readonly symbols: readonly string[] | null
  /** how far back historical endpoints reach, days; null = full archive */
  readonly historyDays: number | null
  readonly features: ReadonlySet<Feature>
}

const BASIC: Feature[] = ['options', 'whales', 'confirm', 'history', 'usage']
const TRADER: Feature[] = [...BASIC, 'screener', 'onchain', 'stream']
const ALL: Feature[] = [...TRADER, 'export', 'webhooks', 'nodeintel']

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { name: 'free', callsPerDay: 200, symbols: ['BTC', 'ETH', 'SOL'], historyDays: 30, features: new Set(BASIC) },
  trader: { name: 'trader', callsPerDay: 3_000, symbols: null, historyDays: 365, features: new Set(TRADER) },
  pro: { name: 'pro', callsPerDay: 15_000, symbols: null, historyDays: 730, features: new Set(ALL) },
  enterprise: { name: 'enterprise', callsPerDay: null, symbols: null, historyDays: null, features: new Set(ALL) }
}

export function isPlanName(v: unknown): v is PlanName {
  return typeof v === 'string' && (PLAN_NAMES as readonly string[]).includes(v)
}

/** The cheapest plan that includes `feature`. */
export function cheapestPlanWith(feature: Feature): PlanName {
  return PLAN_NAMES.find((p) => PLANS[p].features.has(feature)) ?? 'enterprise'
}
