/**
 * @module
 * The accounts: persisted in `accounts` (last version wins), held in memory by id and by email so a login
 * or a session check is a map lookup. A change updates memory once the store has it. `load` reloads every
 * KEY_RELOAD_MS (the server's supervisor runs it) keeping the newer of memory and store per account, like
 * the alert settings (engine/alerts/alert-settings.ts), so several servers on one ClickHouse converge.
 * Invariants: emails are unique (trimmed, lower case); exactly the first account is the owner.
 */
import crypto from 'node:crypto'
import type { PlanName } from '../access/plans.js'
import type { Store } from '../store/store.js'
import { sqlTime } from '../store/sql-time.js'

export type Role = 'owner' | 'member'

export interface Account {
  readonly id: string
  /** trimmed, lower case */
  readonly email: string
  /** `scrypt$N$r$p$salt$key` (engine/accounts/password.ts) */
  readonly passwordHash: string
  readonly role: Role
  readonly plan: PlanName
  /** the key a session of this account is served as (created at sign-up) */
  readonly dashboardKeyId: string
  /** epoch ms */
  readonly createdAt: number
  /** row version: the newest wins, in the table and in memory */
  readonly version: number
}

/** What the API shows of an account. */
export interface AccountView {
  readonly id: string
  readonly email: string
  readonly role: Role
  readonly plan: PlanName
  readonly created_at: string
}

interface Row {
  id: string
  email: string
  password_hash: string
  role: Role
  plan: PlanName
  dashboard_key_id: string
  created_ms: number
  version: number | string
}

/** Longest email, characters (RFC 5321 path limit). */
export const EMAIL_MAX = 254
/** A pragmatic shape check: something@something.tld, no spaces; the address is never mailed by Tidewatch. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase()
}

export function emailProblem(email: string): string | null {
  if (email.length === 0 || email.length > EMAIL_MAX || !EMAIL.test(email))
    return `must be an email address of at most ${EMAIL_MAX} characters`
  return null
}

export function viewOf(a: Account): AccountView {
  return { id: a.id, email: a.email, role: a.role, plan: a.plan, created_at: new Date(a.createdAt).toISOString() }
}

export class AccountRegistry {
  private byId = new Map<string, Account>()
  private byEmail = new Map<string, Account>()
  private lastVersion = 0

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now
  ) {}

  async load(): Promise<void> {
    const rows = await this.store.query<Row>(
      `SELECT id, email, password_hash, role, plan, dashboard_key_id,
              toUnixTimestamp64Milli(created_at) AS created_ms, version
       FROM accounts FINAL`
    )
    const next = new Map<string, Account>()
    for (const r of rows) {
      next.set(r.id, {
        id: r.id,
        email: r.email,
        passwordHash: r.password_hash,
        role: r.role,
        plan: r.plan,
        dashboardKeyId: r.dashboard_key_id,
        createdAt: Number(r.created_ms),
        version: Number(r.version)
      })
    }
    for (const [id, mine] of this.byId) {
      const read = next.get(id)
      if (!read || read.version < mine.version) next.set(id, mine)
    }
    this.byId = next
    this.byEmail = new Map([...next.values()].map((a) => [a.email, a]))
  }

  get size(): number {
    return this.byId.size
  }

  get(id: string): Account | undefined {
    return this.byId.get(id)
  }

  byEmailAddress(email: string): Account | undefined {
    return this.byEmail.get(normalizeEmail(email))
  }

  /** Every account, oldest first. */
  list(): Account[] {
    return [...this.byId.values()].sort((a, b) => a.createdAt - b.createdAt)
  }

  /** A fresh account id: 16 hex characters. */
  static newId(): string {
    return crypto.randomBytes(8).toString('hex')
  }

  private nextVersion(): number {
    // strictly increasing on this server even within one millisecond
    this.lastVersion = Math.max(this.lastVersion + 1, this.now() * 1000)
    return this.lastVersion
  }

  /** Writes an account (new or changed) and then updates memory. */
  async save(a: Omit<Account, 'version'>): Promise<Account> {
    const account: Account = { ...a, version: this.nextVersion() }
    await this.store.command(
      `INSERT INTO accounts (id, email, password_hash, role, plan, dashboard_key_id, created_at, version)
       VALUES ({id:String}, {email:String}, {hash:String}, {role:String}, {plan:String}, {key:String},
               {created:DateTime64(3)}, {version:UInt64})`,
      {
        id: account.id,
        email: account.email,
        hash: account.passwordHash,
        role: account.role,
        plan: account.plan,
        key: account.dashboardKeyId,
        created: sqlTime(account.createdAt),
        version: account.version
      }
    )
    const old = this.byId.get(account.id)
    if (old && old.email !== account.email) this.byEmail.delete(old.email)
    this.byId.set(account.id, account)
    this.byEmail.set(account.email, account)
    return account
  }
}
