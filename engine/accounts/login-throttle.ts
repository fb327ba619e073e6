/**
 * @module
 * Login throttling: failed attempts are counted per account (email) and per client IP in a fixed window
 * that opens at the first failure. At ACCOUNT_FAILURES failures of one email, or IP_FAILURES failures from
 * one IP, within WINDOW_MS, further attempts are refused (429, Retry-After = seconds until the window
 * closes) before any password is checked, so a throttled guess costs no hash and learns nothing. A
 * successful login clears its account's count (not its IP's). Sign-ups are counted per IP in a table of
 * their own (each costs a hash). Tables are bounded: past MAX_ENTRIES, closed windows are dropped, then the oldest quarter.
 * The per-account limit counts failures against existing accounts only (an unknown email has no account to
 * protect; whether an email has an account is not secret: sign-up answers 409 for a taken one). It lets
 * anyone slow down logins to a known email for 15 minutes; the per-IP limit bounds how fast one client can
 * guess across emails.
 */

/** Window of counted failures, ms (15 minutes). */
export const WINDOW_MS = 15 * 60_000
/** Failures of one email within the window before it is throttled. */
export const ACCOUNT_FAILURES = 5
/** Failed logins from one IP within the window before it is throttled (guessing across emails). */
export const IP_FAILURES = 50
/** Sign-ups from one IP within the window (each costs a hash) before further ones are refused. */
export const IP_SIGNUPS = 30
/** Most emails or IPs tracked at once, per table. */
const MAX_ENTRIES = 100_000

interface Window {
  count: number
  /** epoch ms of the first failure of the window */
  since: number
}

class FailureTable {
  private readonly windows = new Map<string, Window>()

  constructor(
    private readonly limit: number,
    private readonly now: () => number
  ) {}

  /** Seconds until `id` may try again, or 0 when it may now. */
  blockedFor(id: string): number {
    const w = this.windows.get(id)
    if (!w) return 0
    const left = w.since + WINDOW_MS - this.now()
    if (left <= 0) {
      this.windows.delete(id)
      return 0
    }
    return w.count >= this.limit ? Math.ceil(left / 1000) : 0
  }

  fail(id: string): void {
    const now = this.now()
    let w = this.windows.get(id)
    if (!w || now - w.since >= WINDOW_MS) {
      if (!w && this.windows.size >= MAX_ENTRIES) this.evict(now)
      w = { count: 0, since: now }
      this.windows.set(id, w)
    }
    w.count++
  }

  clear(id: string): void {
    this.windows.delete(id)
  }

  get size(): number {
    return this.windows.size
  }

  private evict(now: number): void {
    for (const [id, w] of this.windows) if (now - w.since >= WINDOW_MS) this.windows.delete(id)
    if (this.windows.size < MAX_ENTRIES) return
    let n = MAX_ENTRIES / 4
    for (const id of this.windows.keys()) {
      if (n-- <= 0) break
      this.windows.delete(id)
    }
  }
}

export class LoginThrottle {
  private readonly accounts: FailureTable
  private readonly ips: FailureTable
  private readonly signups: FailureTable
  /** counters for /v1/health */
  readonly counters = { login_failures: 0, login_throttled: 0 }

  constructor(now: () => number = Date.now) {
    this.accounts = new FailureTable(ACCOUNT_FAILURES, now)
    this.ips = new FailureTable(IP_FAILURES, now)
    this.signups = new FailureTable(IP_SIGNUPS, now)
  }

  /**
   * Seconds to wait before this account may be tried from this IP; 0 = go ahead. Counted when > 0. `email`
   * null: no such account (only the IP's limit applies).
   */
  check(email: string | null, ip: string): number {
    const wait = Math.max(email === null ? 0 : this.accounts.blockedFor(email), this.ips.blockedFor(ip))
    if (wait > 0) this.counters.login_throttled++
    return wait
  }

  /** Seconds this IP must wait before signing up; 0 = go ahead. */
  checkIp(ip: string): number {
    const wait = this.signups.blockedFor(ip)
    if (wait > 0) this.counters.login_throttled++
    return wait
  }

  failed(email: string | null, ip: string): void {
    this.counters.login_failures++
    if (email !== null) this.accounts.fail(email)
    this.ips.fail(ip)
  }

  /** Counts a sign-up attempt of an IP. */
  signupAttempt(ip: string): void {
    this.signups.fail(ip)
  }

  succeeded(email: string): void {
    this.accounts.clear(email)
  }
}
