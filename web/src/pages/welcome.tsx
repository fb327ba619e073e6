/**
 * @module
 * The first visit: what Tidewatch is, how accounts start (the first account becomes the owner), and the
 * public data a visitor sees without an account (GET /v1/options/chain and /v1/whales/summary, the public
 * endpoints); and the page shown instead of a view the caller cannot open (signed out, or a plan without
 * the feature), which says why rather than calling the API for a refusal.
 */
import { PLANS, type Feature } from '../../../catalog/plans.js'
import { client, currentAccount } from '../lib/api.js'
import { num, usd } from '../lib/format.js'
import { cheapestPlanWith, currentPlan, PAGE_NEEDS } from '../lib/plan.js'
import { linkTo } from '../lib/router.js'
import type { OptionsChain, WhaleSummary } from '../lib/api-types.js'
import { ErrorLine, Page, useApi, type Loaded } from '../lib/ui.js'

/** What each feature gives, in the words the first page and the plan notes use. */
const FEATURE_TEXT: Readonly<Record<Feature, string>> = {
  options: 'options open interest by strike and max pain',
  whales: 'whale flows per chain and the latest whale transfers',
  confirm: 'a confirmation of a trade idea (advice only)',
  history: 'candles and funding history',
  usage: 'your calls per day',
  screener: 'the derivatives screener',
  onchain: 'on-chain metrics',
  stream: 'the live push stream',
  export: 'bulk export (Parquet, CSV, freqtrade)',
  webhooks: 'signed webhooks',
  nodeintel: 'node intelligence'
}

const A = (props: { to: string; children: string }) => (
  <a href={props.to} onClick={linkTo(props.to)}>
    {props.children}
  </a>
)

function PublicOptions(props: { res: Loaded<OptionsChain> }) {
  const res = props.res
  const c = res.data
  const [expiry, pain] = c ? (Object.entries(c.max_pain)[0] ?? [null, null]) : [null, null]
  return (
    <div class="card wide" data-testid="public-options">
      <div class="label">
        <A to="/options">Options</A> · BTC
      </div>
      <ErrorLine error={res.error} />
      {c ? (
        <p>
          Underlying {usd(c.underlying_price)} · put/call {num(c.pcr_oi, 2)}
          {expiry && pain ? ` · max pain ${num(pain.strike, 0)} (${expiry})` : ''}
        </p>
      ) : (
        <p class="muted">Loading…</p>
      )}
    </div>
  )
}

function PublicWhales(props: { res: Loaded<WhaleSummary> }) {
  const res = props.res
  const s = res.data
  return (
    <div class="card wide" data-testid="public-whales">
      <div class="label">
        <A to="/whales">Whales</A> · last 24 h
      </div>
      <ErrorLine error={res.error} />
      {s ? (
        <p>
          Volume {usd(s.total_volume_24h)} · {num(s.active_wallets, 0)} active wallets ·{' '}
          {Object.keys(s.net_flows).length} chains
        </p>
      ) : (
        <p class="muted">Loading…</p>
      )}
    </div>
  )
}

export function WelcomePage() {
  const options = useApi('options', () => client.GET('/v1/options/chain', { params: { query: { currency: 'BTC' } } }))
  const whales = useApi('whales', () => client.GET('/v1/whales/summary'))
  return (
    <Page title="Welcome to Tidewatch" synthetic={options.data?.synthetic || whales.data?.synthetic}>
      <div class="welcome" data-testid="welcome">
        <p class="lead">
          Tidewatch gathers crypto derivatives, options and on-chain whale data from the exchanges and chains this
          server follows, and serves it as one API, a live push stream and signed webhooks: candles, funding across
          venues, a derivatives screener, options open interest and max pain, whale flows, and a confirmation of trade
          ideas for bots (advice only: it never trades).
        </p>
        <h2>Open without an account</h2>
        <div class="cards">
          <PublicOptions res={options} />
          <PublicWhales res={whales} />
        </div>
        <h2>Accounts</h2>
        <p data-testid="owner-note">
          <strong>The first account created on this server becomes its owner.</strong> The owner invites everyone else
          (an invite link from the Account page) and sets each account's plan; an account gets API keys for its bots and
          this dashboard signs in with the same account.
        </p>
        <p class="inline">
          <a class="button" href="/signup" onClick={linkTo('/signup')}>
            Sign up
          </a>
          <a class="button secondary" href="/login" onClick={linkTo('/login')}>
            Log in
          </a>
        </p>
        <h2>What each plan adds</h2>
        <table class="grid plans" data-testid="plan-table">
          <thead>
            <tr>
              <th>Plan</th>
              <th class="r">Calls a day</th>
              <th>Adds</th>
            </tr>
          </thead>
          <tbody>
            {PLANS.map((p, i) => {
              const before = new Set<Feature>(i > 0 ? PLANS[i - 1]!.features : [])
              const added = p.features.filter((f) => !before.has(f))
              return (
                <tr key={p.name}>
                  <td>{p.name}</td>
                  <td class="r">{p.callsPerDay === null ? 'unlimited' : num(p.callsPerDay, 0)}</td>
                  <td>{added.length > 0 ? added.map((f) => FEATURE_TEXT[f]).join(', ') : 'more calls'}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </Page>
  )
}

/** Shown instead of the page at `path` when the caller cannot open it: why, and what to do. */
export function NotIncluded(props: { path: string; label: string; reason: 'signed-out' | 'plan' }) {
  const feature = PAGE_NEEDS[props.path]?.feature
  return (
    <Page title={props.label}>
      <div class="notice explain" data-testid="not-included">
        {props.reason === 'signed-out' ? (
          <>
            <p>
              {props.label} needs an account{feature ? ` (${FEATURE_TEXT[feature]})` : ''}. <A to="/signup">Sign up</A>{' '}
              (the first account on this server becomes its owner) or <A to="/login">log in</A>.
            </p>
            <p class="muted">
              Without an account: <A to="/options">Options</A> and <A to="/whales">Whales</A>.
            </p>
          </>
        ) : (
          <p>
            {props.label} ({FEATURE_TEXT[feature!]}) is not in the {currentPlan()} plan: it needs the{' '}
            {cheapestPlanWith(feature!)} plan or higher.{' '}
            {currentAccount()?.role === 'owner'
              ? 'Set the plan of your account on the Account page.'
              : 'The owner of this server sets plans.'}
          </p>
        )}
      </div>
    </Page>
  )
}
