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
  /** push stream (/v1/stream): open connections per key, subscriptions per connection (docs/stream.md) */
  readonly stream: { readonly connections: number; readonly subscriptions: number }
}

const BASIC: Feature[] = ['options', 'whales', 'confirm', 'history', 'usage']
const TRADER: Feature[] = [...BASIC, 'screener', 'onchain', 'stream']
const ALL: Feature[] = [...TRADER, 'export', 'webhooks', 'nodeintel']

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: {
    name: 'free',
    callsPerDay: 200,
    symbols: ['BTC', 'ETH', 'SOL'],
    historyDays: 30,
    features: new Set(BASIC),
    stream: { connections: 0, subscriptions: 0 }
  },
  trader: {
    name: 'trader',
    callsPerDay: 3_000,
    symbols: null,
    historyDays: 365,
    features: new Set(TRADER),
    stream: { connections: 5, subscriptions: 50 }
  },
  pro: {
    name: 'pro',
    callsPerDay: 15_000,
    symbols: null,
    historyDays: 730,
    features: new Set(ALL),
    stream: { connections: 25, subscriptions: 200 }
  },
  enterprise: {
    name: 'enterprise',
    callsPerDay: null,
    symbols: null,
    historyDays: null,
    features: new Set(ALL),
    stream: { connections: 1_000, subscriptions: 1_000 }
  }
}

export function isPlanName(v: unknown): v is PlanName {
  return typeof v === 'string' && (PLAN_NAMES as readonly string[]).includes(v)
}

/** The cheapest plan that includes `feature`. */
export function cheapestPlanWith(feature: Feature): PlanName {
  return PLAN_NAMES.find((p) => PLANS[p].features.has(feature)) ?? 'enterprise'
}
