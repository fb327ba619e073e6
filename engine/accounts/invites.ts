/**
 * @module
 * Invites: the owner makes a link `/signup?invite=<token>`; a sign-up that presents the token spends it.
 * The token is 32 random bytes (base64url); only its SHA-256 is stored. An invite is valid INVITE_TTL_MS
 * and for one sign-up. Spending is checked and marked in memory in one synchronous step (two concurrent
 * sign-ups with one token: one wins), then written; the store is read on a miss (another server's invite).
 */
import crypto from 'node:crypto'
import type { Store } from '../store/store.js'
import { sessionDigest } from './sessions.js'
import { sqlTime } from '../store/sql-time.js'

/** Bytes of an invite token; written base64url (no padding) it is INVITE_TOKEN_PATTERN. */
const INVITE_TOKEN_BYTES = 32

/** The text of an invite token: 32 bytes in base64url without padding, 43 characters. */
export const INVITE_TOKEN_PATTERN = `^[A-Za-z0-9_-]{${Math.ceil((INVITE_TOKEN_BYTES * 4) / 3)}}$`

/** The refusal of an invite that is not one: unknown, expired, spent, or not a token at all. */
export const INVALID_INVITE = 'is not a valid invite: unknown, expired or already used'

/** How long an invite link is valid, ms (7 days). */
export const INVITE_TTL_MS = 7 * 86_400_000
const TOKEN = /^[A-Za-z0-9_-]{43}$/

interface Invite {
  readonly tokenSha256: string
  readonly createdBy: string
  readonly createdAt: number
  readonly expiresAt: number
}

interface Row {
  token_sha256: string
  created_by: string
  created_ms: number
  expires_ms: number
  used: number
}

export class InviteBook {
  /** invites made or read here and not yet spent (sha -> invite); spent ones are removed */
  private readonly open = new Map<string, Invite>()
  /** digests being spent or spent here (bounded by the number of sign-ups) */
  private readonly spent = new Set<string>()

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now
  ) {}

  private async write(i: Invite, usedBy: string | null): Promise<void> {
    const used = usedBy !== null
    await this.store.command(
      `INSERT INTO invites (token_sha256, created_by, created_at, expires_at, used_at, used_by, version)
       VALUES ({sha:String}, {by:String}, {created:DateTime64(3)}, {expires:DateTime64(3)},
               ${used ? '{used:DateTime64(3)}' : 'NULL'}, {used_by:String}, {version:UInt64})`,
      {
        sha: i.tokenSha256,
        by: i.createdBy,
        created: sqlTime(i.createdAt),
        expires: sqlTime(i.expiresAt),
        ...(used ? { used: sqlTime(this.now()) } : {}),
        used_by: usedBy ?? '',
        version: used ? 2 : 1
      }
    )
  }

  async create(createdBy: string): Promise<{ token: string; expiresAt: number }> {
    const token = crypto.randomBytes(INVITE_TOKEN_BYTES).toString('base64url')
    const now = this.now()
    // expired invites leave memory here: the map holds at most the invites of the last INVITE_TTL_MS
    for (const [sha, open] of this.open) if (open.expiresAt <= now) this.open.delete(sha)
    const invite: Invite = {
      tokenSha256: sessionDigest(token),
      createdBy,
      createdAt: now,
      expiresAt: now + INVITE_TTL_MS
    }
    await this.write(invite, null)
    this.open.set(invite.tokenSha256, invite)
    return { token, expiresAt: invite.expiresAt }
  }

  private async find(sha: string): Promise<Invite | null> {
    const hit = this.open.get(sha)
    if (hit) return hit
    const rows = await this.store.query<Row>(
      `SELECT token_sha256, created_by, toUnixTimestamp64Milli(created_at) AS created_ms,
              toUnixTimestamp64Milli(expires_at) AS expires_ms, NOT isNull(used_at) AS used
       FROM invites FINAL WHERE token_sha256 = {sha:String}`,
      { sha }
    )
    const r = rows[0]
    if (!r || Number(r.used) === 1) return null
    return {
      tokenSha256: r.token_sha256,
      createdBy: r.created_by,
      createdAt: Number(r.created_ms),
      expiresAt: Number(r.expires_ms)
    }
  }

  /**
   * Reserves an invite for a sign-up: the returned `commit(accountId)` marks it spent, `release()` gives
   * it back (the sign-up failed). null when the token is malformed, unknown, expired or spent.
   */
  async reserve(token: string): Promise<{ commit: (accountId: string) => Promise<void>; release: () => void } | null> {
    if (!TOKEN.test(token)) return null
    const sha = sessionDigest(token)
    if (this.spent.has(sha)) return null
    const invite = await this.find(sha)
    if (!invite || invite.expiresAt <= this.now() || this.spent.has(sha)) return null
    this.spent.add(sha)
    return {
      commit: async (accountId) => {
        this.open.delete(sha)
        await this.write(invite, accountId)
      },
      release: () => {
        this.spent.delete(sha)
      }
    }
  }
}
