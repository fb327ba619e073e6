/**
 * @module
 * Login sessions. A session id is 32 random bytes (base64url, 43 characters) that exists in clear only in
 * the client's cookie; the store and memory hold its SHA-256, so a leaked table opens no session. A session
 * lasts SESSION_MAX_MS from login and ends after SESSION_IDLE_MS without a request; logout and a password
 * change end sessions at once on this server (memory first, then the store). The CSRF token of a session is
 * derived from its id (SHA-256 of a label and the id): a page that can read the session's answers has it,
 * a cross-site form cannot compute it (it never sees the cookie).
 * Memory is bounded: at most SESSIONS_PER_ACCOUNT per account (a new login ends the oldest).
 */
import crypto from 'node:crypto'
import type { Store } from '../store/store.js'
import { sqlTime } from '../store/sql-time.js'

/** Absolute lifetime of a session, ms (30 days). */
export const SESSION_MAX_MS = 30 * 86_400_000
/** A session unused this long has ended, ms (7 days). */
export const SESSION_IDLE_MS = 7 * 86_400_000
/** Last use is written to the store at most this often per session, ms (1 hour): idle expiry is that coarse across restarts. */
const TOUCH_PERSIST_MS = 3_600_000
/** Open sessions per account; a new login past this ends the oldest. */
export const SESSIONS_PER_ACCOUNT = 20

export interface Session {
  readonly idSha256: string
  readonly accountId: string
  /** epoch ms */
  readonly createdAt: number
  /** epoch ms of the last request, as seen here */
  lastSeenAt: number
  /** epoch ms of the last use written to the store */
  persistedSeenAt: number
  version: number
}

interface Row {
  id_sha256: string
  account_id: string
  created_ms: number
  seen_ms: number
  ended: number
  version: number | string
}

export function sessionDigest(rawId: string): string {
  return crypto.createHash('sha256').update(rawId).digest('hex')
}

/** The CSRF token of a session: derived from its id, never stored. */
export function csrfTokenOf(rawId: string): string {
  return crypto.createHash('sha256').update('tidewatch-csrf\0').update(rawId).digest('base64url')
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function csrfMatches(rawId: string, presented: string | undefined): boolean {
  if (presented === undefined) return false
  const a = Buffer.from(csrfTokenOf(rawId))
  const b = Buffer.from(presented)
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

/** A session id's shape (what `crypto.randomBytes(32).toString('base64url')` gives). */
const RAW_ID = /^[A-Za-z0-9_-]{43}$/

export class SessionStore {
  private sessions = new Map<string, Session>()
  private lastVersion = 0
  /** counters for /v1/health */
  readonly counters = { created: 0, ended: 0, expired: 0, touch_errors: 0 }

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly onError: (err: unknown) => void = () => {}
  ) {}

  get size(): number {
    return this.sessions.size
  }

  private nextVersion(): number {
    this.lastVersion = Math.max(this.lastVersion + 1, this.now() * 1000)
    return this.lastVersion
  }

  private live(s: Session, now: number): boolean {
    return now - s.createdAt < SESSION_MAX_MS && now - s.lastSeenAt < SESSION_IDLE_MS
  }

  /** Reads the sessions of the last SESSION_MAX_MS; keeps for each the newer of memory and store. */
  async load(): Promise<void> {
    const now = this.now()
    const rows = await this.store.query<Row>(
      `SELECT id_sha256, account_id, toUnixTimestamp64Milli(created_at) AS created_ms,
              toUnixTimestamp64Milli(last_seen_at) AS seen_ms, NOT isNull(ended_at) AS ended, version
       FROM sessions FINAL WHERE created_at > {since:DateTime64(3)}`,
      { since: sqlTime(now - SESSION_MAX_MS) }
    )
    const next = new Map<string, Session>()
    const ended = new Set<string>()
    for (const r of rows) {
      const version = Number(r.version)
      const mine = this.sessions.get(r.id_sha256)
      if (mine && mine.version > version) continue
      if (Number(r.ended) === 1) {
        ended.add(r.id_sha256)
        continue
      }
      const seen = Math.max(Number(r.seen_ms), mine?.lastSeenAt ?? 0)
      next.set(r.id_sha256, {
        idSha256: r.id_sha256,
        accountId: r.account_id,
        createdAt: Number(r.created_ms),
        lastSeenAt: seen,
        persistedSeenAt: Number(r.seen_ms),
        version
      })
    }
    // created here after the query read the table
    for (const [sha, mine] of this.sessions) if (!next.has(sha) && !ended.has(sha)) next.set(sha, mine)
    for (const [sha, s] of next) if (!this.live(s, now)) next.delete(sha)
    this.sessions = next
  }

  private async persist(s: Session, endedAt: number | null): Promise<void> {
    await this.store.command(
      `INSERT INTO sessions (id_sha256, account_id, created_at, last_seen_at, ended_at, version)
       VALUES ({sha:String}, {account:String}, {created:DateTime64(3)}, {seen:DateTime64(3)},
               ${endedAt === null ? 'NULL' : '{ended:DateTime64(3)}'}, {version:UInt64})`,
      {
        sha: s.idSha256,
        account: s.accountId,
        created: sqlTime(s.createdAt),
        seen: sqlTime(s.lastSeenAt),
        ...(endedAt === null ? {} : { ended: sqlTime(endedAt) }),
        version: s.version
      }
    )
  }

  /** Opens a session; the returned raw id goes into the cookie and nowhere else. */
  async create(accountId: string): Promise<{ rawId: string; session: Session }> {
    const rawId = crypto.randomBytes(32).toString('base64url')
    const now = this.now()
    const session: Session = {
      idSha256: sessionDigest(rawId),
      accountId,
      createdAt: now,
      lastSeenAt: now,
      persistedSeenAt: now,
      version: this.nextVersion()
    }
    await this.persist(session, null)
    this.sessions.set(session.idSha256, session)
    this.counters.created++
    const mine = [...this.sessions.values()].filter((s) => s.accountId === accountId)
    if (mine.length > SESSIONS_PER_ACCOUNT) {
      mine.sort((a, b) => a.lastSeenAt - b.lastSeenAt)
      for (const old of mine.slice(0, mine.length - SESSIONS_PER_ACCOUNT)) await this.endOne(old)
    }
    return { rawId, session }
  }

  /**
   * The live session a cookie value names, or null (malformed, unknown, ended, expired alike). Marks it
   * used; the store learns of it at most every TOUCH_PERSIST_MS (in the background).
   */
  resolve(rawId: string): Session | null {
    if (!RAW_ID.test(rawId)) return null
    const s = this.sessions.get(sessionDigest(rawId))
    if (!s) return null
    const now = this.now()
    if (!this.live(s, now)) {
      this.sessions.delete(s.idSha256)
      this.counters.expired++
      return null
    }
    s.lastSeenAt = now
    if (now - s.persistedSeenAt >= TOUCH_PERSIST_MS) {
      s.persistedSeenAt = now
      s.version = this.nextVersion()
      this.persist(s, null).catch((err: unknown) => {
        this.counters.touch_errors++
        this.onError(err)
      })
    }
    return s
  }

  private async endOne(s: Session): Promise<void> {
    this.sessions.delete(s.idSha256)
    s.version = this.nextVersion()
    this.counters.ended++
    await this.persist(s, this.now())
  }

  /** Ends the session a cookie value names (logout); nothing when there is none. */
  async end(rawId: string): Promise<void> {
    const s = this.sessions.get(sessionDigest(rawId))
    if (s) await this.endOne(s)
  }

  /** Ends every session of an account except `keepSha256` (a password change keeps the current one). */
  async endOthers(accountId: string, keepSha256: string | null): Promise<number> {
    const doomed = [...this.sessions.values()].filter((s) => s.accountId === accountId && s.idSha256 !== keepSha256)
    for (const s of doomed) await this.endOne(s)
    return doomed.length
  }
}
