/**
 * @module
 * What a route's declaration cannot say about its answers, for the OpenAPI document (server/openapi.ts):
 * statuses a handler answers itself (a busy import, the export slots, the WebSocket upgrade), and success
 * bodies that are not one JSON schema (file exports, NDJSON event streams). Keyed by `METHOD path`; an entry
 * for a route that is not served is ignored. The contract test (test/integration/openapi-contract.test.ts)
 * fails when an answer's status is not documented, so a handler that learns a new status shows up there.
 */
import { EXPORT_FORMATS } from '../engine/export/formats.js'
import { FREQTRADE_ARCHIVE_TYPE } from '../engine/export/freqtrade/archive.js'
import type { OperationNotes } from './operation-notes.js'
import { ACCOUNT_OPERATION_NOTES } from './routes/account/openapi-notes.js'
import { NODE_OPERATION_NOTES } from './routes/node.js'
import { WATCH_OPERATION_NOTES } from './routes/node-watch.js'

type Json = Record<string, unknown>

export const RETRY_AFTER = { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } }

/** media types without parameters (`text/csv; charset=utf-8` is documented as text/csv); layout=freqtrade's tar */
const EXPORT_TYPES = [
  ...new Set(Object.values(EXPORT_FORMATS).map((f) => f.contentType.split(';')[0]!)),
  FREQTRADE_ARCHIVE_TYPE
]

const EXPORT_CONTENT: Json = Object.fromEntries(
  EXPORT_TYPES.map((type) => [
    type,
    {
      schema:
        type === 'application/json'
          ? { type: 'array', items: { type: 'object' }, description: 'json_layout=array: one array of row objects' }
          : type.startsWith('text/') || type.endsWith('ndjson')
            ? { type: 'string', description: 'text: CSV with a header line, or one JSON object per line' }
            : { contentMediaType: type, description: 'binary file' }
    }
  ])
)

export const OPERATION_NOTES: Readonly<Record<string, OperationNotes>> = {
  ...ACCOUNT_OPERATION_NOTES, // accounts (docs/accounts.md)
  ...NODE_OPERATION_NOTES, // node intelligence (docs/node-intel.md)
  ...WATCH_OPERATION_NOTES, // node intelligence: watch list and verdict history
  'GET /v1/stream': {
    description:
      ' Over plain HTTP (a GET without `Upgrade: websocket`) this takes no query parameters and, once the key is accepted, answers 426 upgrade_required. The upgrade request takes `?encoding=json|msgpack` and `?key=` (instead of the header) and answers 101 or the errors below before anything is upgraded.',
    success: {
      status: '101',
      response: { description: 'Switching Protocols: the WebSocket is open (docs/stream.md)' }
    },
    responses: {
      '426': {
        description: 'upgrade_required: a plain HTTP request; connect with a WebSocket client',
        headers: { Upgrade: { description: 'websocket', schema: { type: 'string', const: 'websocket' } } }
      }
    }
  },
  'GET /v1/backtest/export': {
    success: {
      status: '200',
      response: {
        description:
          'the file, streamed (chunked); its content type follows `format` (json: application/x-ndjson, or application/json with json_layout=array); layout=freqtrade: application/x-tar. A failure after the first byte cuts the transfer short (no final chunk).',
        headers: {
          'Content-Disposition': {
            description: 'attachment; filename="tidewatch_<symbols>_<timeframe>_<first day>_<last day><ext>"',
            schema: { type: 'string' }
          },
          'X-Export-Markets': { description: 'markets in the file', schema: { type: 'integer', minimum: 0 } },
          'X-Export-Max-Rows': {
            description: 'the most rows the file can have (markets x buckets): a progress bar total',
            schema: { type: 'integer', minimum: 0 }
          }
        },
        content: EXPORT_CONTENT
      }
    },
    responses: {
      '413': { description: 'payload_too_large: an HDF5 export over its row limit; request format=parquet' },
      '503': {
        description: 'unavailable: EXPORT_MAX_CONCURRENT exports are already streaming',
        headers: { 'Retry-After': RETRY_AFTER }
      }
    }
  },
  'POST /v1/admin/ingest/{kind}': {
    responses: {
      '404': { description: 'unknown record kind' },
      '503': {
        description: 'unavailable: too many ingest requests in progress',
        headers: { 'Retry-After': RETRY_AFTER }
      }
    }
  },
  'POST /v1/admin/import': {
    success: {
      status: '200',
      response: {
        description: 'NDJSON events, streamed: progress, file, then done or error (docs/import.md)',
        content: { 'application/x-ndjson': { schema: { type: 'string' } } }
      }
    },
    responses: {
      '503': {
        description:
          'unavailable: an import is already running (Retry-After), or the store is a ClickHouse server (import reads files through the embedded store)',
        headers: { 'Retry-After': RETRY_AFTER }
      }
    }
  },
  'GET /v1/ready': {
    responses: {
      '503': {
        description: 'warming_up: the live state is being built or the demo market backfills',
        headers: { 'Retry-After': RETRY_AFTER }
      }
    }
  },
  'DELETE /v1/admin/keys/{id}': { responses: { '404': { description: 'no API key with that id' } } },
  'POST /v1/webhooks/test': {
    responses: { '404': { description: 'not_found: no webhook with that webhook_id for this API key' } }
  },
  // the alert authenticates with the secret in its body, so its refusals come from the handler (docs/alerts.md)
  'POST /v1/{alert_source}/webhook': {
    responses: {
      '401': { description: 'unauthorized: the secret is missing, wrong or revoked (one body for all of these)' },
      '403': {
        description:
          'forbidden: the sender is not in ALERT_ALLOWED_IPS, or the symbol is outside the plan of the key the secret names'
      },
      '404': { description: 'not_found: no alert source of that name (tradingview and ALERT_SOURCES are served)' },
      '429': {
        description: "quota_exceeded: the key's daily quota is used up",
        headers: { 'Retry-After': RETRY_AFTER }
      },
      '503': {
        description: 'unavailable: the confirmation was not ready within 2 s, or warming_up while the service starts',
        headers: { 'Retry-After': RETRY_AFTER }
      }
    }
  }
}
