/**
 * @module
 * The account: password change (ends the other sessions), logout, and for the owner an invite link and
 * every account with its plan. Also the development key: an API key pasted here is used instead of the
 * session (stored in this browser only).
 */
import { useState } from 'preact/hooks'
import { PLAN_NAMES } from '../../../catalog/plans.js'
import { client, currentAccount, devKey, setDevKey, setSession } from '../lib/api.js'
import { loadDevKeyPlan } from '../lib/plan.js'
import { CopyField } from '../lib/copy.js'
import { when } from '../lib/format.js'
import { navigate } from '../lib/router.js'
import type { Invite } from '../lib/api-types.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'

function PasswordForm() {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [msg, setMsg] = useState<unknown>(null)
  const [ok, setOk] = useState(false)
  return (
    <form
      class="stack narrow"
      onSubmit={async (e) => {
        e.preventDefault()
        try {
          await client.POST('/v1/account/password', { body: { current_password: current, new_password: next } })
          setOk(true)
          setMsg(null)
          setCurrent('')
          setNext('')
        } catch (err) {
          setOk(false)
          setMsg(err)
        }
      }}
    >
      <h2>Change password</h2>
      <label>
        Current password
        <input
          type="password"
          autocomplete="current-password"
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
      </label>
      <label>
        New password (at least 10 characters)
        <input
          type="password"
          autocomplete="new-password"
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Change password</button>
      {ok ? <p class="ok">Password changed; your other sessions are signed out.</p> : null}
      <ErrorLine error={msg} />
    </form>
  )
}

function OwnerPanel() {
  const accounts = useApi('accounts', () => client.GET('/v1/account/accounts'))
  const [invite, setInvite] = useState<Invite | null>(null)
  const [error, setError] = useState<unknown>(null)
  return (
    <div class="stack">
      <h2>Invite someone</h2>
      <button
        type="button"
        onClick={async () => {
          try {
            setInvite(await client.POST('/v1/account/invites'))
          } catch (err) {
            setError(err)
          }
        }}
      >
        Create invite link
      </button>
      {invite ? (
        <>
          <CopyField label="Invite link" value={`${location.origin}${invite.url}`} testid="invite-url" />
          <p class="muted">Valid until {when(invite.expires_at)} UTC; one sign-up.</p>
        </>
      ) : null}
      <h2>Accounts</h2>
      <ErrorLine error={error || accounts.error} />
      <table class="grid">
        <thead>
          <tr>
            <th>Email</th>
            <th>Role</th>
            <th>Plan</th>
          </tr>
        </thead>
        <tbody>
          {(accounts.data?.accounts ?? []).map((a) => (
            <tr key={a.id}>
              <td>{a.email}</td>
              <td>{a.role}</td>
              <td>
                <select
                  aria-label={`Plan of ${a.email}`}
                  value={a.plan}
                  onChange={async (e) => {
                    try {
                      await client.PATCH('/v1/account/accounts/{id}', {
                        params: { path: { id: a.id } },
                        // the options are PLAN_NAMES
                        body: { plan: e.currentTarget.value as (typeof PLAN_NAMES)[number] }
                      })
                      accounts.reload()
                    } catch (err) {
                      setError(err)
                    }
                  }}
                >
                  {PLAN_NAMES.map((p) => (
                    <option value={p}>{p}</option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function DevKeyForm() {
  const [key, setKey] = useState(devKey())
  return (
    <form
      class="stack narrow"
      onSubmit={(e) => {
        e.preventDefault()
        setDevKey(key.trim())
        void loadDevKeyPlan()
      }}
    >
      <h2>Use an API key instead (development)</h2>
      <p class="muted">
        A key pasted here is sent as X-API-Key from this browser instead of your session. Leave empty to use the
        session.
      </p>
      <input aria-label="API key" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="tw_live_…" />
      <button type="submit">Save</button>
    </form>
  )
}

export function AccountPage() {
  const account = currentAccount()
  return (
    <Page title="Account">
      {account ? (
        <div class="stack">
          <p>
            Signed in as <strong>{account.email}</strong> ({account.role}, plan {account.plan}).
          </p>
          <button
            type="button"
            onClick={async () => {
              await client.POST('/v1/account/logout').catch(() => undefined)
              setSession(null)
              navigate('/login')
            }}
          >
            Log out
          </button>
          <PasswordForm />
          {account.role === 'owner' ? <OwnerPanel /> : null}
        </div>
      ) : (
        <p>Not signed in.</p>
      )}
      <DevKeyForm />
    </Page>
  )
}
