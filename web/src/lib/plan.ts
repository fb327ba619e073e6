/**
 * @module
 * What the caller may open: the rules of lib/plan-rules.ts applied to this page's caller, with the
 * signed-in account's plan (catalog/plans.ts), the development key's plan (GET /v1/usage), or, signed
 * out, the public endpoints only. The navigation shows the pages the caller's plan includes, and a page
 * outside it explains why instead of calling the API for a refusal (docs/dashboard.md "Plans and the
 * signed-out visitor").
 */
import type { Feature, PlanName } from '../../../catalog/plans.js'
import { client, currentAccount, devKey, sessionChanged } from './api.js'
import { callerAllows, refusalFor, type Caller } from './plan-rules.js'

export { cheapestPlanWith, PAGE_NEEDS } from './plan-rules.js'

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

function caller(): Caller {
  return { signedIn: currentAccount() !== null, devKey: devKey() !== '', plan: currentPlan() }
}

/** Whether the caller may use a feature (lib/plan-rules.ts). */
export function allows(feature: Feature): boolean {
  return callerAllows(caller(), feature)
}

/** Why the caller cannot open the page at `path`: null when it can (lib/plan-rules.ts). */
export function pageRefusal(path: string): 'signed-out' | 'plan' | null {
  return refusalFor(caller(), path)
}
