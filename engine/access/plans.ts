/**
 * @module
 * Plans and what they include, as the access checks read them: the plan data is the catalog's
 * (catalog/plans.ts); here each plan's features become a set, and a feature a plan lacks answers 403
 * naming the cheapest plan that has it.
 */
import { PLAN_NAMES, PLANS as PLAN_ENTRIES, type Feature, type PlanName } from '../../catalog/plans.js'

export { PLAN_NAMES, type Feature, type PlanName }

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

export const PLANS: Readonly<Record<PlanName, Plan>> = Object.fromEntries(
  PLAN_ENTRIES.map((p): [PlanName, Plan] => [p.name, { ...p, features: new Set<Feature>(p.features) }])
) as Record<PlanName, Plan>

export function isPlanName(v: unknown): v is PlanName {
  return typeof v === 'string' && (PLAN_NAMES as readonly string[]).includes(v)
}

/** The cheapest plan that includes `feature`. */
export function cheapestPlanWith(feature: Feature): PlanName {
  return PLAN_NAMES.find((p) => PLANS[p].features.has(feature)) ?? 'enterprise'
}
