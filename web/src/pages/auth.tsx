/**
 * @module
 * Sign-up (`?invite=` carried from the owner's invite link) and login. Both post JSON to /v1/account/* and
 * keep the returned account and CSRF token (lib/api.ts); the session itself is the HttpOnly cookie.
 */
import { useState } from 'preact/hooks'
import { client, setSession } from '../lib/api.js'
import { linkTo, navigate } from '../lib/router.js'
import { ErrorLine, Page } from '../lib/ui.js'

/** The server's minimum (docs/accounts contract): checked here too for a quicker answer. */
const MIN_PASSWORD = 10

function AuthForm(props: { mode: 'signup' | 'login'; invite: string | null }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    if (props.mode === 'signup' && password.length < MIN_PASSWORD) {
      setError(`the password needs at least ${MIN_PASSWORD} characters`)
      return
    }
    setBusy(true)
    try {
      const r =
        props.mode === 'signup'
          ? await client.POST('/v1/account/signup', {
              body: { email, password, ...(props.invite ? { invite: props.invite } : {}) }
            })
          : await client.POST('/v1/account/login', { body: { email, password } })
      setSession(r.account, r.csrf_token)
      navigate('/keys')
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="stack narrow" onSubmit={submit}>
      {props.invite ? <p class="muted">You were invited: this sign-up uses the invite link.</p> : null}
      <label>
        Email
        <input
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </label>
      <label>
        Password{props.mode === 'signup' ? ` (at least ${MIN_PASSWORD} characters)` : ''}
        <input
          name="password"
          type="password"
          autocomplete={props.mode === 'signup' ? 'new-password' : 'current-password'}
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <button type="submit" disabled={busy}>
        {props.mode === 'signup' ? 'Create account' : 'Log in'}
      </button>
      <ErrorLine error={error} />
      {props.mode === 'signup' ? (
        <p class="muted">
          Have an account?{' '}
          <a href="/login" onClick={linkTo('/login')}>
            Log in
          </a>
        </p>
      ) : (
        <p class="muted">
          New here?{' '}
          <a href="/signup" onClick={linkTo('/signup')}>
            Sign up
          </a>{' '}
          (the first account is the owner; later ones need an invite unless sign-up is open)
        </p>
      )}
    </form>
  )
}

export function SignupPage(props: { query: URLSearchParams }) {
  return (
    <Page title="Sign up">
      <AuthForm mode="signup" invite={props.query.get('invite')} />
    </Page>
  )
}

export function LoginPage() {
  return (
    <Page title="Log in">
      <AuthForm mode="login" invite={null} />
    </Page>
  )
}
