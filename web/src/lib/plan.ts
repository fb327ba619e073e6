/**
 * @module
 * What the caller may open: the features of the signed-in account's plan (catalog/plans.ts), or of the
 * development key's plan (GET /v1/usage), or, signed out, the public endpoints only. The navigation shows
 * the pages the caller's plan includes, and a page outside it explains why instead of calling the API for
 * a refusal (docs/dashboard.md "Plans and the signed-out visitor").
 */
import { PLANS, type Feature, type PlanName } from '../../../catalog/plans.js'
import { client, currentAccount, devKey, sessionChanged } from './api.js'

/**
 * The features a caller without a key or session may use: the routes with `access: 'public'`
 * (server/routes/options.ts, whales.ts: GET /v1/options/chain, /v1/whales/summary, /v1/whales/events).
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

/** The development key's plan as GET /v1/usage answered it; null while unknown. */
let devKeyPlan: PlanName | null = null

/** Reads the development key's plan (GET /v1/usage, which every plan may call); null without a key. */
export async function loadDevKeyPlan(): Promise<void> {
  const had = devKeyPlan
  devKeyPlan = null
  if (devKey()) {
    try {
      devKeyPlan = (await client.GET('/v1/usage')).plan
    } catch {
      // an unknown or revoked key: its pages show the API's refusal
    }
  }
  if (devKeyPlan !== had) sessionChanged()
}

/** The caller's plan: the development key's (calls go with it), else the account's; null signed out. */
export function currentPlan(): PlanName | null {
  if (devKey()) return devKeyPlan
  return currentAccount()?.plan ?? null
}

/** Whether the caller may use a feature; a development key whose plan is unknown may try everything. */
export function allows(feature: Feature): boolean {
  const plan = currentPlan()
  if (plan) return (PLANS.find((p) => p.name === plan)!.features as readonly Feature[]).includes(feature)
  return devKey() !== '' || PUBLIC_FEATURES.includes(feature)
}

/** Why the caller cannot open the page at `path`: null when it can. */
export function pageRefusal(path: string): 'signed-out' | 'plan' | null {
  const needs = PAGE_NEEDS[path]
  if (!needs) return null
  if (needs.session && !currentAccount()) return 'signed-out'
  if (needs.feature && !allows(needs.feature)) return currentPlan() ? 'plan' : 'signed-out'
  return null
}

/** The cheapest plan that includes a feature (PLANS is cheapest first). */
export function cheapestPlanWith(feature: Feature): PlanName {
  return PLANS.find((p) => (p.features as readonly Feature[]).includes(feature))!.name
}
