/**
 * @module
 * Outbound webhooks (/v1/webhooks*, docs/webhooks.md) under the session: register, edit (events, symbols,
 * URL), disable and enable, send a signed test, and each webhook's delivery log with statuses and response
 * excerpts; a failed delivery can be redelivered.
 */
import { useState } from 'preact/hooks'
import { WEBHOOK_EVENT_TYPES } from '../../../catalog/webhook-events.js'
import type { RequestBody } from '@tidewatch/client'
import { client } from '../lib/api.js'
import { when } from '../lib/format.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'
import type { Deliveries, Webhook } from '../lib/api-types.js'

/** The registrable event types (catalog/webhook-events.ts), for the form's label and its tooltip. */
const EVENT_NAMES = WEBHOOK_EVENT_TYPES.map((t) => t.name).join(', ')
const EVENT_HELP = WEBHOOK_EVENT_TYPES.map((t) => `${t.name}: ${t.description}`).join('\n')

/** the event names typed in the form; the API answers 400 naming an unknown one */
type EventNames = NonNullable<RequestBody<'/v1/webhooks/{id}', 'patch'>['events']>
const list = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)

function Deliveries(props: { id: number }) {
  const log = useApi(String(props.id), () =>
    client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: String(props.id) }, query: { limit: 50 } } })
  )
  const [error, setError] = useState<unknown>(null)
  return (
    <div class="stack">
      <div class="inline">
        <h3>Delivery log</h3>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <ErrorLine error={error || log.error} />
      <table class="grid" data-testid={`deliveries-${props.id}`}>
        <thead>
          <tr>
            <th>Created</th>
            <th>Event</th>
            <th>Symbol</th>
            <th>Trigger</th>
            <th>State</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Response</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(log.data?.deliveries ?? []).map((d) => {
            const last = d.attempt_log[d.attempt_log.length - 1]
            return (
              <tr key={d.delivery_id}>
                <td>{when(d.created_at)}</td>
                <td>{d.event}</td>
                <td>{d.symbol}</td>
                <td>{d.trigger}</td>
                <td>
                  <span class={`state ${d.state}`}>{d.state}</span>
                </td>
                <td>{d.last_status_code ?? d.last_error ?? '–'}</td>
                <td>{d.attempts}</td>
                <td class="excerpt" title={last?.response_excerpt ?? ''}>
                  {(last?.response_excerpt ?? '').slice(0, 80)}
                </td>
                <td>
                  {d.state === 'failed' ? (
                    <button
                      type="button"
                      onClick={async () => {
                        try {
                          await client.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', {
                            params: { path: { id: String(props.id), delivery_id: d.delivery_id } }
                          })
                          log.reload()
                        } catch (err) {
                          setError(err)
                        }
                      }}
                    >
                      Redeliver
                    </button>
                  ) : null}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

function WebhookRow(props: { hook: Webhook; changed: () => void }) {
  const h = props.hook
  const [editing, setEditing] = useState(false)
  const [url, setUrl] = useState(h.url)
  const [events, setEvents] = useState(h.events.join(', '))
  const [symbols, setSymbols] = useState(h.symbols.join(', '))
  const [error, setError] = useState<unknown>(null)
  const [test, setTest] = useState<{ ok: boolean; text: string; at: number } | null>(null)
  const [showLog, setShowLog] = useState(false)
  /** Runs an API call; its error shows on the row, its success reloads the list. */
  const call = async <T,>(run: () => Promise<T>): Promise<T | null> => {
    try {
      const r = await run()
      setError(null)
      props.changed()
      return r
    } catch (err) {
      setError(err)
      return null
    }
  }
  return (
    <div class="card wide" data-testid={`webhook-${h.webhook_id}`}>
      <div class="inline">
        <strong>#{h.webhook_id}</strong>
        <span class="mono">{h.url}</span>
        <span class={`state ${h.state}`}>{h.state}</span>
      </div>
      <p class="muted">
        events {h.events.join(', ')} · symbols {h.symbols.join(', ')} · since {when(h.created_at)}
        {h.state_reason ? ` · ${h.state_reason}` : ''}
      </p>
      <div class="inline">
        <button
          type="button"
          onClick={async () => {
            const r = await call(() => client.POST('/v1/webhooks/test', { body: { webhook_id: h.webhook_id } }))
            if (r)
              setTest({
                ok: r.delivered,
                text: r.delivered
                  ? `test delivered: ${r.status_code} ${r.response_excerpt ?? ''}`
                  : `test failed: ${r.status_code ?? r.error}`,
                at: Date.now()
              })
            setShowLog(true)
          }}
        >
          Send test
        </button>
        {h.state === 'active' ? (
          <button
            type="button"
            onClick={() =>
              call(() =>
                client.PATCH('/v1/webhooks/{id}', {
                  params: { path: { id: String(h.webhook_id) } },
                  body: { state: 'disabled' }
                })
              )
            }
          >
            Disable
          </button>
        ) : (
          <button
            type="button"
            onClick={() =>
              call(() => client.POST('/v1/webhooks/{id}/enable', { params: { path: { id: String(h.webhook_id) } } }))
            }
          >
            Enable
          </button>
        )}
        <button type="button" onClick={() => setEditing(!editing)}>
          Edit
        </button>
        <button type="button" onClick={() => setShowLog(!showLog)}>
          {showLog ? 'Hide log' : 'Delivery log'}
        </button>
        <button
          type="button"
          class="danger"
          onClick={() =>
            confirm(`Remove webhook #${h.webhook_id}?`) &&
            call(() => client.DELETE('/v1/webhooks/{id}', { params: { path: { id: String(h.webhook_id) } } }))
          }
        >
          Remove
        </button>
      </div>
      {test ? (
        <p class={test.ok ? 'ok' : 'error'} data-testid="test-result">
          {test.text}
        </p>
      ) : null}
      <ErrorLine error={error} />
      {editing ? (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault()
            if (
              await call(() =>
                client.PATCH('/v1/webhooks/{id}', {
                  params: { path: { id: String(h.webhook_id) } },
                  body: { url, events: list(events) as EventNames, symbols: list(symbols) }
                })
              )
            )
              setEditing(false)
          }}
        >
          <input aria-label="URL" value={url} onInput={(e) => setUrl(e.currentTarget.value)} size={40} />
          <input aria-label="Events" value={events} onInput={(e) => setEvents(e.currentTarget.value)} />
          <input aria-label="Symbols" value={symbols} onInput={(e) => setSymbols(e.currentTarget.value)} />
          <button type="submit">Save</button>
        </form>
      ) : null}
      {showLog ? <Deliveries id={h.webhook_id} key={String(test?.at ?? 0)} /> : null}
    </div>
  )
}

export function WebhooksPage() {
  const hooks = useApi('webhooks', () => client.GET('/v1/webhooks'))
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState('*')
  const [symbols, setSymbols] = useState('*')
  const [secret, setSecret] = useState('')
  const [error, setError] = useState<unknown>(null)
  return (
    <Page title="Webhooks">
      <form
        class="stack narrow"
        onSubmit={async (e) => {
          e.preventDefault()
          try {
            await client.POST('/v1/webhooks', {
              body: { url, events: list(events) as EventNames, symbols: list(symbols), secret }
            })
            setUrl('')
            setSecret('')
            setError(null)
            hooks.reload()
          } catch (err) {
            setError(err)
          }
        }}
      >
        <h2>Register a webhook</h2>
        <label>
          HTTPS URL
          <input
            name="url"
            required
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            placeholder="https://hooks.example.com/tidewatch"
          />
        </label>
        <label title={EVENT_HELP}>
          Events ({EVENT_NAMES} or *)
          <input name="events" value={events} onInput={(e) => setEvents(e.currentTarget.value)} />
        </label>
        <label>
          Symbols (base assets or *)
          <input name="symbols" value={symbols} onInput={(e) => setSymbols(e.currentTarget.value)} />
        </label>
        <label>
          Signing secret (at least 16 characters; keep it, it is not shown again)
          <input
            name="secret"
            type="password"
            required
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Register</button>
        <ErrorLine error={error} />
      </form>
      <ErrorLine error={hooks.error} />
      <div class="stack">
        {(hooks.data?.webhooks ?? []).map((h) => (
          <WebhookRow key={h.webhook_id} hook={h} changed={hooks.reload} />
        ))}
      </div>
    </Page>
  )
}
