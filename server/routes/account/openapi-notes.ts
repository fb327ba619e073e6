/**
 * @module
 * What the accounts routes answer beyond their declarations, for the OpenAPI document (spread into
 * server/openapi-operations.ts): they authenticate with the session cookie themselves (route access
 * `none`), so their 401, 403 and 429 are stated here.
 */
import type { OperationNotes } from '../../operation-notes.js'

type Notes = Record<string, OperationNotes>

const RETRY = {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } }
}
const NO_SESSION = { description: 'unauthorized: no live session (log in; cookie tw_session)' }
const CSRF = {
  description:
    "csrf_failed: a state change under the session without header X-CSRF-Token equal to the session's csrf_token, or a cross-site Origin"
}
const OWNER = { description: 'forbidden: only the owner account may do this; or csrf_failed (see X-CSRF-Token)' }
const THROTTLED = {
  description: 'rate_limited: too many failed logins for this account or from this IP (15 minutes)',
  headers: RETRY
}
const BUSY = { description: 'unavailable: too many password hashes in progress', headers: RETRY }
const SESSION_ONLY = { description: 'csrf_failed: a cross-site Origin (the request is refused)' }

export const ACCOUNT_OPERATION_NOTES: Readonly<Notes> = {
  'POST /v1/account/signup': {
    responses: {
      '403': SESSION_ONLY,
      '409': { description: 'conflict: an account with this email exists' },
      '415': { description: 'unsupported_media_type: the body must be sent as application/json' },
      '429': { ...THROTTLED, description: 'rate_limited: too many sign-ups or failed logins from this IP' },
      '503': BUSY
    }
  },
  'POST /v1/account/login': {
    responses: {
      '401': { description: 'invalid_credentials: wrong email or password (the same answer for an unknown email)' },
      '403': SESSION_ONLY,
      '415': { description: 'unsupported_media_type: the body must be sent as application/json' },
      '429': THROTTLED,
      '503': BUSY
    }
  },
  'POST /v1/account/logout': { responses: { '403': CSRF } },
  'GET /v1/account': { responses: { '401': NO_SESSION, '403': SESSION_ONLY } },
  'POST /v1/account/password': {
    responses: {
      '401': { description: 'unauthorized: no live session; or invalid_credentials: current_password is wrong' },
      '403': CSRF,
      '429': THROTTLED,
      '503': BUSY
    }
  },
  'POST /v1/account/invites': { responses: { '401': NO_SESSION, '403': OWNER } },
  'GET /v1/account/accounts': { responses: { '401': NO_SESSION, '403': OWNER } },
  'PATCH /v1/account/accounts/{id}': { responses: { '401': NO_SESSION, '403': OWNER } },
  'GET /v1/account/keys': { responses: { '401': NO_SESSION, '403': SESSION_ONLY } },
  'POST /v1/account/keys': {
    responses: { '401': NO_SESSION, '403': { description: `${CSRF.description}; or forbidden: 100 keys already` } }
  },
  'DELETE /v1/account/keys/{id}': { responses: { '401': NO_SESSION, '403': CSRF } },
  'POST /v1/account/keys/{id}/alert-secret': { responses: { '401': NO_SESSION, '403': CSRF } },
  'GET /v1/account/usage': { responses: { '401': NO_SESSION, '403': SESSION_ONLY } }
}
