/**
 * @module
 * The dashboard's entry: reads the session, renders the navigation and the page of the current path.
 * Every page is a client of the public /v1 API (lib/api.ts). The navigation lists the pages the caller's
 * plan includes (lib/plan.ts); a page outside it explains why instead of calling the API for a refusal, and
 * a signed-out visitor's first page says what Tidewatch is (pages/welcome.tsx).
 * `performance.mark('tw:interactive')` is set once the first page has rendered and its handlers are
 * attached (the browser test reports it).
 */
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
// the style sheets in cascade order: the phone rules override the others
import './styles/base.css'
import './styles/charts.css'
import './styles/controls.css'
import './styles/blocks.css'
import './styles/phone.css'
import { currentAccount, devKey, loadSession, onSessionChange } from './lib/api.js'
import { lazyPage } from './lib/lazy.js'
import { linkTo, useLocation } from './lib/router.js'
import { onStreamStatus } from './lib/stream.js'
import { AccountPage } from './pages/account.js'
import { LoginPage, SignupPage } from './pages/auth.js'
import { ConfirmPage } from './pages/confirm.js'
import { FundingPage } from './pages/funding.js'
import { KeysPage } from './pages/keys.js'
import { OptionsPage } from './pages/options.js'
import { ScreenerPage } from './pages/screener.js'
import { NotIncluded, WelcomePage } from './pages/welcome.js'
import { WhalesPage } from './pages/whales.js'
import type { Feature } from '../../catalog/plans.js'
import { cheapestPlanWith, currentPlan, loadDevKeyPlan, PAGE_NEEDS, pageRefusal } from './lib/plan.js'

// the two pages drawing with lightweight-charts load it (two thirds of the JavaScript) on first use, so
// the other pages (sign-up and login above all) start without it
const CandlesPage = lazyPage(() => import('./pages/candles.js').then((m) => m.CandlesPage))
const UsagePage = lazyPage(() => import('./pages/usage.js').then((m) => m.UsagePage))
// the webhooks page takes its event types from the catalog, whose payload schemas need TypeBox: loaded on
// first use, so the other pages start without it
const WebhooksPage = lazyPage(() => import('./pages/webhooks.js').then((m) => m.WebhooksPage))

const MARKET = [
  ['/candles', 'Candles'],
  ['/options', 'Options'],
  ['/funding', 'Funding'],
  ['/whales', 'Whales'],
  ['/screener', 'Screener'],
  ['/confirm', 'Confirm']
] as const

const ACCOUNT = [
  ['/keys', 'API access'],
  ['/usage', 'Usage'],
  ['/webhooks', 'Webhooks'],
  ['/account', 'Account']
] as const

const LABELS: Readonly<Record<string, string>> = Object.fromEntries([...MARKET, ...ACCOUNT])

/** The pages the caller's plan leaves out, as "Screener (trader)", for the plan badge's explanation. */
function leftOut(): string[] {
  return [...MARKET, ...ACCOUNT]
    .filter(([to]) => pageRefusal(to) === 'plan')
    .map(([to, label]) => `${label} (${cheapestPlanWith(PAGE_NEEDS[to]!.feature as Feature)} plan)`)
}

function Nav(props: { path: string }) {
  const account = currentAccount()
  const plan = currentPlan()
  const [stream, setStream] = useState('idle')
  useEffect(() => onStreamStatus(setStream), [])
  // a page the caller cannot open is not linked: it could only show a refusal
  const link = (to: string, label: string) =>
    pageRefusal(to) === null ? (
      <a href={to} class={props.path === to ? 'active' : ''} onClick={linkTo(to)}>
        {label}
      </a>
    ) : null
  const missing = plan ? leftOut() : []
  const streamTitle =
    stream === 'off' ? 'push stream: not in this plan (trader plan or higher)' : `push stream: ${stream}`
  return (
    <nav class="nav">
      <a class="brand" href="/" onClick={linkTo('/')}>
        Tidewatch
      </a>
      <div class="group">{MARKET.map(([to, label]) => link(to, label))}</div>
      <div class="group">
        {account || devKey()
          ? ACCOUNT.map(([to, label]) => link(to, label))
          : [link('/login', 'Log in'), link('/signup', 'Sign up')]}
      </div>
      <div class="who">
        <span class={`dot ${stream}`} title={streamTitle} />
        {account ? account.email : devKey() ? 'API key' : 'signed out'}
        {plan ? (
          <span
            class="badge plan"
            data-testid="plan-badge"
            title={missing.length > 0 ? `Not in the ${plan} plan: ${missing.join(', ')}` : `${plan} plan`}
          >
            {plan}
          </span>
        ) : null}
      </div>
    </nav>
  )
}

function Route(props: { path: string; query: URLSearchParams }) {
  const refusal = pageRefusal(props.path === '/' ? '/candles' : props.path)
  if (props.path === '/' && refusal === 'signed-out') return <WelcomePage />
  if (refusal) return <NotIncluded path={props.path} label={LABELS[props.path] ?? 'This page'} reason={refusal} />
  switch (props.path) {
    case '/signup':
      return <SignupPage query={props.query} />
    case '/login':
      return <LoginPage />
    case '/account':
      return <AccountPage />
    case '/keys':
      return <KeysPage />
    case '/usage':
      return <UsagePage />
    case '/webhooks':
      return <WebhooksPage />
    case '/options':
      return <OptionsPage />
    case '/funding':
      return <FundingPage query={props.query} />
    case '/whales':
      return <WhalesPage />
    case '/screener':
      return <ScreenerPage />
    case '/confirm':
      return <ConfirmPage query={props.query} />
    case '/':
    case '/candles':
      return <CandlesPage query={props.query} />
    default:
      return (
        <section class="page">
          <h1>Not found</h1>
          <p>No page at {props.path}.</p>
        </section>
      )
  }
}

function App() {
  const { path, query } = useLocation()
  const [, setTick] = useState(0)
  useEffect(() => onSessionChange(() => setTick((n) => n + 1)), [])
  useEffect(() => {
    performance.mark('tw:interactive')
  }, [])
  return (
    <div class="shell">
      <Nav path={path} />
      <main key={path}>
        <Route path={path} query={query} />
      </main>
    </div>
  )
}

void loadSession()
  .then(loadDevKeyPlan)
  .finally(() => render(<App />, document.getElementById('app')!))
