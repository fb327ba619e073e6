/**
 * @module
 * The plans and what each includes (service spec "Limits"), declared once: calls per UTC day, symbols,
 * history depth, features and push-stream limits. engine/access/plans.ts builds its lookups from here; the
 * API schemas, the CLI and the dashboard take the plan names from here.
 *
 * Neutral: imports nothing from engine/, ingest/ or server/, no node builtins and no packages.
 */

/** The features a plan may include; a feature a plan lacks answers 403 naming the cheapest plan that has it. */
export const FEATURES = [
  'options',
  'whales',
  'confirm',
  'history',
  'usage',
  'screener',
  'onchain',
  'stream',
  'export',
  'webhooks',
  'nodeintel'
] as const
export type Feature = (typeof FEATURES)[number]

export interface PlanEntry {
  readonly name: string
  /** calls per UTC day; null = unlimited */
  readonly callsPerDay: number | null
  /** base assets the plan may query; null = all */
  readonly symbols: readonly string[] | null
  /** how far back historical endpoints reach, days; null = full archive */
  readonly historyDays: number | null
  readonly features: readonly Feature[]
  /** push stream (/v1/stream): open connections per key, subscriptions per connection (docs/stream.md) */
  readonly stream: { readonly connections: number; readonly subscriptions: number }
}

const BASIC: readonly Feature[] = ['options', 'whales', 'confirm', 'history', 'usage']
const TRADER: readonly Feature[] = [...BASIC, 'screener', 'onchain', 'stream']
const ALL: readonly Feature[] = [...TRADER, 'export', 'webhooks', 'nodeintel']

/** Every plan, cheapest first (the order "the cheapest plan that has it" reads). */
export const PLANS = [
  {
    name: 'free',
    callsPerDay: 200,
    symbols: ['BTC', 'ETH', 'SOL'],
    historyDays: 30,
    features: BASIC,
    stream: { connections: 0, subscriptions: 0 }
  },
  {
    name: 'trader',
    callsPerDay: 3_000,
    symbols: null,
    historyDays: 365,
    features: TRADER,
    stream: { connections: 5, subscriptions: 50 }
  },
  {
    name: 'pro',
    callsPerDay: 15_000,
    symbols: null,
    historyDays: 730,
    features: ALL,
    stream: { connections: 25, subscriptions: 200 }
  },
  {
    name: 'enterprise',
    callsPerDay: null,
    symbols: null,
    historyDays: null,
    features: ALL,
    stream: { connections: 1_000, subscriptions: 1_000 }
  }
] as const satisfies readonly PlanEntry[]

export type PlanName = (typeof PLANS)[number]['name']

/** The plan names, cheapest first. */
export const PLAN_NAMES: readonly PlanName[] = PLANS.map((p) => p.name)
