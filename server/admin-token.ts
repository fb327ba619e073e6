/**
 * @module
 * The admin bearer token: ADMIN_TOKEN when set, else generated on first start and kept in
 * `DATA_DIR/admin_token` with mode 0600. Checked in constant time.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ApiError } from '../engine/errors.js'

const TOKEN_FILE = 'admin_token'

export interface AdminTokenResult {
  readonly token: string
  /** true when generated now (print it once) */
  readonly generated: boolean
  readonly file: string | null
}

export function ensureAdminToken(configured: string | undefined, dataDir: string): AdminTokenResult {
  if (configured) return { token: configured, generated: false, file: null }
  const file = path.join(dataDir, TOKEN_FILE)
  if (fs.existsSync(file)) return { token: fs.readFileSync(file, 'utf8').trim(), generated: false, file }
  const token = `twadm_${crypto.randomBytes(24).toString('base64url')}`
  fs.writeFileSync(file, token + '\n', { mode: 0o600 })
  fs.chmodSync(file, 0o600)
  return { token, generated: true, file }
}

function digest(s: string): Buffer {
  return crypto.createHash('sha256').update(s).digest()
}

/** Throws 401 unless `authorization` is `Bearer <token>`. */
export function requireAdmin(authorization: string | undefined, token: string): void {
  const m = /^Bearer (\S+)$/.exec(authorization ?? '')
  if (!m || !crypto.timingSafeEqual(digest(m[1]!), digest(token))) {
    throw new ApiError('unauthorized', 'admin endpoints need the header Authorization: Bearer <ADMIN_TOKEN>', {
      headers: { 'www-authenticate': 'Bearer realm="tidewatch-admin"' }
    })
  }
}
