/**
 * @module
 * API access: this account's keys (create with a name, list with plan and last use, revoke; the dashboard
 * key, which the session stands in for and the API refuses to revoke, has no Revoke button), the new
 * key's secret shown once with a copy button, and per key the inbound-alert secret (rotated on request)
 * with a ready-to-paste TradingView alert message for a chosen symbol and direction (docs/alerts.md).
 */
import { useState } from 'preact/hooks'
import { client } from '../lib/api.js'
import { CopyField } from '../lib/copy.js'
import { when } from '../lib/format.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'
import type { AlertSecret, CreatedKey } from '../lib/api-types.js'

/** The TradingView alert message (docs/alerts.md "The alert"); `{{…}}` are TradingView placeholders. */
export function alertMessage(secret: string, symbol: string, direction: string): string {
  const dir = direction === 'strategy' ? '{{strategy.order.action}}' : direction
  return `{"secret":${JSON.stringify(secret)},"symbol":${JSON.stringify(symbol)},"direction":${JSON.stringify(dir)},"timeframe":"{{interval}}","price":{{close}}}`
}

function AlertSecret(props: { keyId: string }) {
  const [secret, setSecret] = useState<AlertSecret | null>(null)
  const [symbol, setSymbol] = useState('{{exchange}}:{{ticker}}')
  const [direction, setDirection] = useState('long')
  const [error, setError] = useState<unknown>(null)
  return (
    <div class="stack alert-box">
      <button
        type="button"
        onClick={async () => {
          try {
            setSecret(
              await client.POST('/v1/account/keys/{id}/alert-secret', { params: { path: { id: props.keyId } } })
            )
            setError(null)
          } catch (err) {
            setError(err)
          }
        }}
      >
        {secret ? 'Rotate alert secret' : 'Create / rotate TradingView alert secret'}
      </button>
      <ErrorLine error={error} />
      {secret ? (
        <>
          <p class="muted">Shown once. Rotating makes the previous secret stop working at once.</p>
          <CopyField label="Webhook URL" value={`${location.origin}${secret.alert_url}`} />
          <div class="inline">
            <label>
              Symbol <input value={symbol} onInput={(e) => setSymbol(e.currentTarget.value)} size={22} />
            </label>
            <label>
              Direction{' '}
              <select value={direction} onChange={(e) => setDirection(e.currentTarget.value)}>
                <option value="long">long</option>
                <option value="short">short</option>
                <option value="strategy">from the strategy (buy/sell)</option>
              </select>
            </label>
          </div>
          <CopyField
            label="Alert message"
            multiline
            value={alertMessage(secret.secret, symbol, direction)}
            testid="alert-message"
          />
        </>
      ) : null}
    </div>
  )
}

export function KeysPage() {
  const keys = useApi('keys', () => client.GET('/v1/account/keys'))
  const [name, setName] = useState('')
  const [created, setCreated] = useState<CreatedKey | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [open, setOpen] = useState<string | null>(null)
  return (
    <Page title="API access">
      <form
        class="inline"
        onSubmit={async (e) => {
          e.preventDefault()
          try {
            setCreated(await client.POST('/v1/account/keys', { body: { name: name.trim() || 'key' } }))
            setName('')
            setError(null)
            keys.reload()
          } catch (err) {
            setError(err)
          }
        }}
      >
        <input
          aria-label="Key name"
          placeholder="Name, e.g. trading bot"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit">Create key</button>
      </form>
      <ErrorLine error={error || keys.error} />
      {created ? (
        <div class="notice">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now: it is not shown again.
          </p>
          <CopyField label="API key" value={created.key} testid="new-key" />
        </div>
      ) : null}
      <table class="grid" data-testid="keys-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Id</th>
            <th>Plan</th>
            <th>Created</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data?.keys ?? []).map((k) => (
            <>
              <tr key={k.id} class={k.revoked_at ? 'revoked' : ''}>
                <td>{k.name}</td>
                <td class="mono">{k.id}</td>
                <td>{k.plan}</td>
                <td>{when(k.created_at)}</td>
                <td>{k.last_used_at ? when(k.last_used_at) : 'never'}</td>
                <td class="actions">
                  {k.revoked_at ? (
                    `revoked ${when(k.revoked_at)}`
                  ) : (
                    <>
                      <button type="button" onClick={() => setOpen(open === k.id ? null : k.id)}>
                        Alerts
                      </button>
                      {k.dashboard ? (
                        <span class="muted" title="This dashboard signs in with it; log out to end its sessions">
                          dashboard key
                        </span>
                      ) : (
                        <button
                          type="button"
                          class="danger"
                          onClick={async () => {
                            if (!confirm(`Revoke key ${k.name}? Calls with it stop at once.`)) return
                            try {
                              await client.DELETE('/v1/account/keys/{id}', { params: { path: { id: k.id } } })
                              keys.reload()
                            } catch (err) {
                              setError(err)
                            }
                          }}
                        >
                          Revoke
                        </button>
                      )}
                    </>
                  )}
                </td>
              </tr>
              {open === k.id ? (
                <tr>
                  <td colSpan={6}>
                    <AlertSecret keyId={k.id} />
                  </td>
                </tr>
              ) : null}
            </>
          ))}
        </tbody>
      </table>
    </Page>
  )
}
