/**
 * @module
 * Inbound alerts (docs/alerts.md). `POST /v1/{alert_source}/webhook` takes an alert from a charting platform
 * (TradingView, or a name in ALERT_SOURCES): no X-API-Key (the platform cannot set headers), the body's
 * `secret` names the key; JSON is read whatever the Content-Type (TradingView sends text/plain). The engine
 * (engine/alerts/alert-service.ts) authenticates, counts, deduplicates, confirms and forwards; this module
 * finds the client address and writes the answer. Under the caller's key: `POST /v1/alerts/secret` creates or
 * rotates the key's alert secret (shown once), `DELETE` removes it, `GET`/`PUT /v1/alerts/settings` read and
 * set forwarding and the silence check, `GET /v1/alerts/strategies` lists the sequence checks per strategy.
 */
import { Type } from '@sinclair/typebox'
import { PLANS, cheapestPlanWith } from '../../engine/access/plans.js'
import { DUPLICATE_WINDOW_MS } from '../../engine/alerts/alert-dedup.js'
import type { AlertOutcome, AlertService } from '../../engine/alerts/alert-service.js'
import type { AlertSettings } from '../../engine/alerts/alert-settings.js'
import type { StrategyStatus } from '../../engine/alerts/strategy-status.js'
import { ApiError } from '../../engine/errors.js'
import {
  AlertResponse,
  AlertSecretResponse,
  AlertSettingsBody,
  AlertSettingsResponse,
  AlertStrategiesResponse
} from '../../schemas/api/alerts.js'
import { clientIp } from '../access/client-ip.js'
import type { ServerContext } from '../context.js'
import { JSON_HEADERS, json, type HttpResponse, type Route, type RouteRequest } from '../http/types.js'

/** Largest alert body, bytes: the six fields fit in a few hundred; TradingView messages are short. */
export const ALERT_MAX_BODY_BYTES = 8 * 1024

function respond(out: AlertOutcome): HttpResponse {
  if (out.quota === null) return { status: 200, headers: JSON_HEADERS, body: out.body }
  return {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'ratelimit-limit': String(out.quota.limit),
      'ratelimit-remaining': String(out.quota.remaining),
      'ratelimit-reset': String(out.quota.resetSeconds)
    },
    body: out.body
  }
}

export function alertRoutes(ctx: Pick<ServerContext, 'config'>, alerts: AlertService): Route[] {
  const settings = alerts.settings
  const hops = ctx.config.trustedProxyHops
  const restricted = alerts.restricted
  const paths = [...alerts.sources].map((s) => `/v1/${s}/webhook`)
  const view = (req: RouteRequest, s: AlertSettings) => ({
    key_id: s.keyId,
    has_secret: s.secretSha256 !== '',
    secret_created_at: s.secretCreatedAt === null ? null : new Date(s.secretCreatedAt).toISOString(),
    forward: s.forward,
    forwarding_available: req.plan!.features.has('webhooks') && alerts.bus !== null,
    webhook_paths: paths,
    duplicate_window_s: DUPLICATE_WINDOW_MS / 1000,
    sender_allow_list: restricted,
    silence_bars: s.silenceBars,
    sequence: totals(alerts.strategies.list(s.keyId))
  })
  const account = { access: 'key', feature: 'confirm', counted: false, data: false, tags: ['alerts'] } as const
  return [
    {
      method: 'POST',
      path: '/v1/:alert_source/webhook',
      pathParams: Type.Object({
        alert_source: Type.String({
          enum: [...ctx.config.alertSources],
          description: 'tradingview or a name in ALERT_SOURCES'
        })
      }),
      access: 'none',
      // gated by readiness and labelled synthetic like every data answer
      data: true,
      maxBodyBytes: ALERT_MAX_BODY_BYTES,
      summary:
        'Inbound alert (TradingView and ALERT_SOURCES): the confirmation of its symbol and direction, with an alert id',
      description: `alert_source: tradingview or a name in ALERT_SOURCES (other names answer 404). No X-API-Key: the body's secret (POST /v1/alerts/secret) names the key; the alert counts as one call of that key and follows its plan. The same alert again within ${DUPLICATE_WINDOW_MS / 1000} s answers the first answer with duplicate: true (not counted, not forwarded again). A missing or wrong secret answers one 401; a sender outside ALERT_ALLOWED_IPS 403. See docs/alerts.md.`,
      tags: ['alerts'],
      rawBody: {
        contentType: 'application/json',
        description:
          'a JSON object: secret, symbol, direction (long/short), optional timeframe, strategy, price; read as JSON whatever the Content-Type (TradingView sends text/plain)'
      },
      response: AlertResponse,
      handler: (req) => {
        // the client address only matters under an allow-list (reading it has a cost)
        const ip = restricted ? clientIp(req.ip, req.headers['x-forwarded-for'], hops) : ''
        const out = alerts.receive(req.params['alert_source']!, req.body, ip)
        return out instanceof Promise ? out.then(respond) : respond(out)
      }
    },
    {
      ...account,
      method: 'POST',
      path: '/v1/alerts/secret',
      status: 201,
      summary: "Create or rotate the key's alert secret (shown only in this answer; the previous one stops working)",
      response: AlertSecretResponse,
      handler: async (req) => {
        const { settings: s, secret } = await settings.rotate(req.key!.id)
        return json(201, { ...view(req, s), secret })
      }
    },
    {
      ...account,
      method: 'DELETE',
      path: '/v1/alerts/secret',
      summary: "Remove the key's alert secret: its alerts answer 401 until a new one is created",
      response: AlertSettingsResponse,
      handler: async (req) => json(200, view(req, await settings.removeSecret(req.key!.id)))
    },
    {
      ...account,
      method: 'GET',
      path: '/v1/alerts/settings',
      summary: "The key's alert settings: whether it has a secret, forwarding, the alert paths",
      response: AlertSettingsResponse,
      handler: (req) => json(200, view(req, settings.get(req.key!.id)))
    },
    {
      ...account,
      method: 'PUT',
      path: '/v1/alerts/settings',
      maxBodyBytes: 1024,
      summary:
        "Set the key's alert settings: forward (publish each accepted alert as a SIGNAL to the key's webhooks) and silence_bars (alert.silent after that many bars without an alert)",
      body: AlertSettingsBody,
      response: AlertSettingsResponse,
      handler: async (req) => {
        const forward = req.json!['forward'] as boolean | undefined
        const silenceBars = req.json!['silence_bars'] as number | undefined
        const plan = PLANS[req.key!.plan]
        if (forward && !plan.features.has('webhooks')) {
          throw new ApiError(
            'forbidden',
            `forwarding alerts to webhooks needs the ${cheapestPlanWith('webhooks')} plan or higher; this key is on the ${plan.name} plan`,
            { param: 'forward' }
          )
        }
        return json(200, view(req, await settings.update(req.key!.id, { forward, silenceBars })))
      }
    },
    {
      ...account,
      method: 'GET',
      path: '/v1/alerts/strategies',
      summary:
        "Sequence checks of the key's alerts per strategy and symbol: received, missing, late, out of order, silent",
      response: AlertStrategiesResponse,
      handler: (req) => json(200, { strategies: alerts.strategies.list(req.key!.id).map(strategyView) })
    }
  ]
}

const iso = (ms: number | null): string | null => (ms === null || ms === 0 ? null : new Date(ms).toISOString())

function strategyView(s: StrategyStatus) {
  return {
    strategy: s.strategy,
    symbol: s.symbol,
    timeframe: s.timeframe,
    received: s.received,
    missing: s.missing,
    late: s.late,
    out_of_order: s.outOfOrder,
    last_seq: s.lastSeq === null ? null : s.lastSeq.kind === 'number' ? s.lastSeq.value : iso(s.lastSeq.value),
    last_alert_at: iso(s.lastReceivedAt),
    silent: s.silentSince !== null,
    silent_since: iso(s.silentSince),
    silences: s.silences
  }
}

/** The key's sequence counts summed over its strategies. */
function totals(list: readonly StrategyStatus[]) {
  const t = { strategies: list.length, received: 0, missing: 0, late: 0, out_of_order: 0, silent: 0 }
  for (const s of list) {
    t.received += s.received
    t.missing += s.missing
    t.late += s.late
    t.out_of_order += s.outOfOrder
    if (s.silentSince !== null) t.silent++
  }
  return t
}
