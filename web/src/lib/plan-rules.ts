/**
 * @module
 * The rules of what a caller may open, as pure functions of who the caller is (lib/plan.ts applies them
 * to the page's session): a plan's features (catalog/plans.ts), the public endpoints for a caller without
 * a key or session, and what each page's API calls need. No browser globals: unit-tested in Node.
 */
import { PLANS, type Feature, type PlanName } from '../../../catalog/plans.js'

/**
 * The features a caller without a key or session may use: those of the routes with `access: 'public'`
 * (server/routes/options.ts, whales.ts: GET /v1/options/chain, /v1/whales/summary, /v1/whales/events;
 * test/unit/web-plan-rules.test.ts reads the routes to check the list).
 */
export const PUBLIC_FEATURES: readonly Feature[] = ['options', 'whales']

/** What each page's API calls need: a plan feature, and for the /v1/account/* pages a session (not a key). */
export const PAGE_NEEDS: Readonly<Record<string, { readonly feature?: Feature; readonly session?: true }>> = {
  '/candles': { feature: 'history' },
  '/options': { feature: 'options' },
  '/funding': { feature: 'history' },
  '/whales': { feature: 'whales' },
  '/screener': { feature: 'screener' },
  '/confirm': { feature: 'confirm' },
  '/keys': { session: true },
  '/usage': { feature: 'usage', session: true },
  '/webhooks': { feature: 'webhooks' }
}

/** Who calls: signed in (a session), with a development key, and the plan when known. */
export interface Caller {
  readonly signedIn: boolean
  readonly devKey: boolean
  /** the plan the calls go out on; null signed out, or a development key whose plan is not known */
  readonly plan: PlanName | null
}

/** Whether the caller may use a feature; a development key whose plan is unknown may try everything. */
export function callerAllows(caller: Caller, feature: Feature): boolean {
  if (caller.plan) return (PLANS.find((p) => p.name === caller.plan)!.features as readonly Feature[]).includes(feature)
  return caller.devKey || PUBLIC_FEATURES.includes(feature)
}

/** Why the caller cannot open the page at `path`: null when it can. */
export function refusalFor(caller: Caller, path: string): 'signed-out' | 'plan' | null {
  const needs = PAGE_NEEDS[path]
  if (!needs) return null
  if (needs.session && !caller.signedIn) return 'signed-out'
  if (needs.feature && !callerAllows(caller, needs.feature)) return caller.plan ? 'plan' : 'signed-out'
  return null
}

/** The cheapest plan that includes a feature (PLANS is cheapest first). */
export function cheapestPlanWith(feature: Feature): PlanName {
  return PLANS.find((p) => (p.features as readonly Feature[]).includes(feature))!.name
}
