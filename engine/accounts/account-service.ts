/**
 * @module
 * Accounts as a whole: sign-up (the first account is the owner on the enterprise plan; later ones need an
 * invite unless SIGNUP=open, and start on the free plan), login with throttling, logout, password change
 * (ends every other session), invites, plans set by the owner (the account's keys follow), and the keys
 * that belong to an account. Each account has a `dashboard` key made at sign-up: a request under the
 * account's session is served as that key (server/accounts/session-gate.ts).
 * Sign-ups run one at a time (a mutex), so two first sign-ups cannot both become the owner and one email
 * cannot be taken twice on this server.
 */
import { ApiError } from '../errors.js'
import type { KeyRecord, KeyRegistry } from '../access/key-registry.js'
import type { PlanName } from '../access/plans.js'
import { AccountRegistry, emailProblem, normalizeEmail, type Account } from './account-registry.js'
import { hashPassword, passwordProblem, verifyPassword } from './password.js'
import { SessionStore, type Session } from './sessions.js'
import { INVALID_INVITE, InviteBook } from './invites.js'
import { LoginThrottle } from './login-throttle.js'
import type { Store } from '../store/store.js'
import type { Logger } from '../log.js'

export type SignupMode = 'invite' | 'open'

/** The name of the key a session stands in for. */
export const DASHBOARD_KEY_NAME = 'dashboard'
/** Keys an account may hold, revoked ones included (each is a row in memory). */
export const KEYS_PER_ACCOUNT = 100

export interface AccountServiceOptions {
  readonly store: Store
  readonly keys: KeyRegistry
  readonly signup: SignupMode
  readonly now?: () => number
  readonly onError?: (err: unknown) => void
  /** audit lines (sign-ups, logins, password and plan changes), by account id: never an email or a secret */
  readonly log?: Logger
}

const invalidCredentials = (): ApiError => new ApiError('invalid_credentials', 'the email or the password is wrong')

function throttled(seconds: number): ApiError {
  return new ApiError('rate_limited', `too many failed attempts; retry in ${seconds} s`, {
    headers: { 'retry-after': String(seconds) }
  })
}

function bad(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', `${param} ${message}`, { param })
}

export class AccountService {
  readonly accounts: AccountRegistry
  readonly sessions: SessionStore
  readonly invites: InviteBook
  readonly throttle: LoginThrottle
  readonly keys: KeyRegistry
  readonly mode: SignupMode
  private readonly log: Logger | undefined
  private signupChain: Promise<unknown> = Promise.resolve()

  constructor(o: AccountServiceOptions) {
    const now = o.now ?? Date.now
    this.accounts = new AccountRegistry(o.store, now)
    this.sessions = new SessionStore(o.store, now, o.onError)
    this.invites = new InviteBook(o.store, now)
    this.throttle = new LoginThrottle(now)
    this.keys = o.keys
    this.mode = o.signup
    this.log = o.log
  }

  async load(): Promise<void> {
    await Promise.all([this.accounts.load(), this.sessions.load()])
  }

  /** Counters for /v1/health. */
  counters(): Record<string, number> {
    return {
      accounts: this.accounts.size,
      sessions: this.sessions.size,
      ...this.sessions.counters,
      ...this.throttle.counters
    }
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.signupChain.then(fn, fn)
    this.signupChain = run.catch(() => undefined)
    return run
  }

  signup(
    email: string,
    password: string,
    invite: string | undefined,
    ip: string
  ): Promise<{ account: Account; rawId: string }> {
    const wait = this.throttle.checkIp(ip)
    if (wait > 0) throw throttled(wait)
    this.throttle.signupAttempt(ip)
    const address = normalizeEmail(email)
    const emailBad = emailProblem(address)
    if (emailBad) throw bad('email', emailBad)
    const passwordBad = passwordProblem(password)
    if (passwordBad) throw bad('password', passwordBad)
    return this.serialized(async () => {
      const first = this.accounts.size === 0
      if (this.accounts.byEmailAddress(address))
        throw new ApiError('conflict', 'an account with this email exists; log in instead')
      let reservation: Awaited<ReturnType<InviteBook['reserve']>> = null
      if (!first && invite !== undefined) {
        reservation = await this.invites.reserve(invite)
        if (!reservation) throw bad('invite', INVALID_INVITE)
      } else if (!first && this.mode === 'invite') {
        throw bad('invite', 'is required: sign-up is by invite (SIGNUP=invite); ask the owner for an invite link')
      }
      try {
        const hash = await hashPassword(password)
        const id = AccountRegistry.newId()
        const plan: PlanName = first ? 'enterprise' : 'free'
        const { record } = await this.keys.create(plan, DASHBOARD_KEY_NAME, id)
        const account = await this.accounts.save({
          id,
          email: address,
          passwordHash: hash,
          role: first ? 'owner' : 'member',
          plan,
          dashboardKeyId: record.id,
          createdAt: Date.now()
        })
        await reservation?.commit(account.id)
        this.log?.info(
          { account: account.id, role: account.role, plan, invited: reservation !== null },
          'account created'
        )
        const { rawId } = await this.sessions.create(account.id)
        return { account, rawId }
      } catch (err) {
        reservation?.release()
        throw err
      }
    })
  }

  async login(email: string, password: string, ip: string): Promise<{ account: Account; rawId: string }> {
    const address = normalizeEmail(email)
    const account = this.accounts.byEmailAddress(address)
    const wait = this.throttle.check(account ? account.email : null, ip)
    if (wait > 0) throw throttled(wait)
    // an unknown email costs a hash too, and answers the same
    const ok = await verifyPassword(password, account?.passwordHash ?? null)
    if (!ok || !account) {
      this.throttle.failed(account ? account.email : null, ip)
      throw invalidCredentials()
    }
    this.throttle.succeeded(address)
    await this.ensureDashboardKey(account)
    const { rawId } = await this.sessions.create(account.id)
    this.log?.info({ account: account.id }, 'login')
    return { account: this.accounts.get(account.id) ?? account, rawId }
  }

  /**
   * Changes the password after checking the current one; ends every session of the account but `keep`.
   * Returns how many sessions ended.
   */
  async changePassword(account: Account, keep: Session, current: string, next: string, ip: string): Promise<number> {
    const wait = this.throttle.check(account.email, ip)
    if (wait > 0) throw throttled(wait)
    const problem = passwordProblem(next)
    if (problem) throw bad('new_password', problem)
    if (!(await verifyPassword(current, account.passwordHash))) {
      this.throttle.failed(account.email, ip)
      throw new ApiError('invalid_credentials', 'current_password is wrong', { param: 'current_password' })
    }
    const hash = await hashPassword(next)
    const latest = this.accounts.get(account.id) ?? account
    await this.accounts.save({ ...latest, passwordHash: hash })
    const ended = await this.sessions.endOthers(account.id, keep.idSha256)
    this.log?.info({ account: account.id, ended_sessions: ended }, 'password changed')
    return ended
  }

  /** Owner only: sets an account's plan; every key of the account follows. */
  async setPlan(target: Account, plan: PlanName): Promise<Account> {
    const saved = await this.accounts.save({ ...target, plan })
    for (const k of this.keys.forAccount(target.id)) if (k.revokedAt === null) await this.keys.setPlan(k.id, plan)
    this.log?.info({ account: target.id, plan }, 'plan set')
    return saved
  }

  /**
   * Gives the account a new `dashboard` key when its own is gone (revoked through the admin API), so a
   * login always ends with a session that can stand in for a key.
   */
  private async ensureDashboardKey(account: Account): Promise<void> {
    if (this.dashboardKey(account)) return
    const { record } = await this.keys.create(account.plan, DASHBOARD_KEY_NAME, account.id)
    const latest = this.accounts.get(account.id) ?? account
    await this.accounts.save({ ...latest, dashboardKeyId: record.id })
    this.log?.warn({ account: account.id, key: record.id }, 'dashboard key was revoked: a new one was made')
  }

  /** The key a session of this account is served as (null if it is gone: revoked by the admin API). */
  dashboardKey(account: Account): KeyRecord | null {
    const k = this.keys.get(account.dashboardKeyId)
    return k && k.revokedAt === null ? k : null
  }

  async createKey(account: Account, name: string): Promise<{ record: KeyRecord; key: string }> {
    if (this.keys.forAccount(account.id).length >= KEYS_PER_ACCOUNT) {
      throw new ApiError('forbidden', `an account holds at most ${KEYS_PER_ACCOUNT} keys, revoked ones included`)
    }
    return this.keys.create(account.plan, name, account.id)
  }

  /** A key of this account, or 404 (another account's key looks exactly like a missing one). */
  ownKey(account: Account, id: string): KeyRecord {
    const k = this.keys.get(id)
    if (!k || k.accountId !== account.id) throw new ApiError('not_found', `no API key with id ${id} in this account`)
    return k
  }

  async revokeKey(account: Account, id: string): Promise<void> {
    const k = this.ownKey(account, id)
    if (k.id === account.dashboardKeyId) {
      throw bad('id', 'names the dashboard key, which the session itself uses; it cannot be revoked (log out instead)')
    }
    await this.keys.revoke(k.id)
  }
}
