/**
 * @module
 * The API keys: persisted in `api_keys`, cached in memory so a check is a map lookup. Creating or
 * revoking a key updates the cache at once (a revoked key stops working on this server immediately) and
 * the store; the cache is reloaded from the store every KEY_RELOAD_MS (the server's supervisor runs `load`) so several servers on one ClickHouse
 * converge.
 */
import type { Store } from '../store/store.js'
import { generateKey, parseKey, secretMatches } from './api-key.js'
import type { PlanName } from './plans.js'
import { sqlTime } from '../store/sql-time.js'

/** How often the cache is reloaded from the store, ms (multi-server deployments). */
export const KEY_RELOAD_MS = 30_000
/**
 * Presented key strings already verified, so the hot path skips the SHA-256 (a hit needs the exact full
 * key, secret included, so it proves what the hash check proves). Cleared on every revoke and reload, so
 * a revocation still takes effect at once; cleared when full, so it stays bounded.
 */
const VERIFIED_MAX = 10_000

export interface KeyRecord {
  readonly id: string
  readonly name: string
  readonly plan: PlanName
  readonly secretSha256: string
  /** epoch ms */
  readonly createdAt: number
  /** epoch ms, null while active */
  readonly revokedAt: number | null
  /** the account the key belongs to (table api_key_owners); null for keys made with the admin token */
  readonly accountId?: string | null
}

/** What list endpoints show: never the hash. */
export interface KeyInfo {
  readonly id: string
  readonly name: string
  readonly plan: PlanName
  readonly created_at: string
  readonly revoked_at: string | null
}

interface KeyRow {
  id: string
  name: string
  plan: PlanName
  secret_sha256: string
  created_ms: number
  revoked_ms: number | null
}

export class KeyRegistry {
  private keys = new Map<string, KeyRecord>()
  private readonly verified = new Map<string, KeyRecord>()

  constructor(private readonly store: Store) {}

  async load(): Promise<void> {
    const rows = await this.store.query<KeyRow>(
      `SELECT id, name, plan, secret_sha256, toUnixTimestamp64Milli(created_at) AS created_ms,
              if(isNull(revoked_at), NULL, toUnixTimestamp64Milli(assumeNotNull(revoked_at))) AS revoked_ms
       FROM api_keys FINAL`
    )
    // accounts (docs/accounts.md): owners of keys made in an account
    const owners = new Map(
      (
        await this.store.query<{ key_id: string; account_id: string }>(
          'SELECT key_id, account_id FROM api_key_owners FINAL'
        )
      ).map((o) => [o.key_id, o.account_id])
    )
    const next = new Map<string, KeyRecord>()
    for (const r of rows) {
      next.set(r.id, {
        id: r.id,
        name: r.name,
        plan: r.plan,
        secretSha256: r.secret_sha256,
        createdAt: r.created_ms,
        revokedAt: r.revoked_ms,
        accountId: owners.get(r.id) ?? null
      })
    }
    this.keys = next
    this.verified.clear()
  }

  private async persist(k: KeyRecord): Promise<void> {
    await this.store.command(
      `INSERT INTO api_keys (id, name, plan, secret_sha256, created_at, revoked_at, version)
       VALUES ({id:String}, {name:String}, {plan:String}, {sha:String}, {created:DateTime64(3)},
               ${k.revokedAt === null ? 'NULL' : '{revoked:DateTime64(3)}'}, {version:UInt64})`,
      {
        id: k.id,
        name: k.name,
        plan: k.plan,
        sha: k.secretSha256,
        created: sqlTime(k.createdAt),
        ...(k.revokedAt === null ? {} : { revoked: sqlTime(k.revokedAt) }),
        version: Date.now() * 1000 + (k.revokedAt === null ? 0 : 1)
      }
    )
  }

  /**
   * Creates a key; the returned `key` is the only time the secret exists in clear. With `accountId` the key
   * belongs to that account (its owner row is written first, so a stored key never lacks its owner).
   */
  async create(
    plan: PlanName,
    name: string,
    accountId: string | null = null
  ): Promise<{ record: KeyRecord; key: string }> {
    const k = generateKey()
    const record: KeyRecord = {
      id: k.id,
      name,
      plan,
      secretSha256: k.secretSha256,
      createdAt: Date.now(),
      revokedAt: null,
      accountId
    }
    if (accountId !== null) {
      await this.store.command(
        'INSERT INTO api_key_owners (key_id, account_id, version) VALUES ({id:String}, {account:String}, 1)',
        { id: k.id, account: accountId }
      )
    }
    await this.persist(record)
    this.keys.set(record.id, record)
    return { record, key: k.key }
  }

  /** Revokes a key; false when there is no such key. Takes effect at once on this server. */
  async revoke(id: string): Promise<boolean> {
    const k = this.keys.get(id)
    if (!k) return false
    if (k.revokedAt !== null) return true
    const revoked: KeyRecord = { ...k, revokedAt: Date.now() }
    this.keys.set(id, revoked)
    this.verified.clear()
    await this.persist(revoked)
    return true
  }

  // accounts (docs/accounts.md)
  /** Moves a key to another plan (an account's plan changed); false when there is no such key. */
  async setPlan(id: string, plan: PlanName): Promise<boolean> {
    const k = this.keys.get(id)
    if (!k) return false
    if (k.plan === plan) return true
    const changed: KeyRecord = { ...k, plan }
    await this.persist(changed)
    this.keys.set(id, changed)
    this.verified.clear()
    return true
  }

  /** The keys of an account, oldest first (revoked ones included). */
  forAccount(accountId: string): KeyRecord[] {
    return [...this.keys.values()].filter((k) => k.accountId === accountId).sort((a, b) => a.createdAt - b.createdAt)
  }

  /** The key with this public id, as loaded or changed on this server (inbound alerts name keys by id). */
  get(id: string): KeyRecord | undefined {
    return this.keys.get(id)
  }

  /** The active key a presented string names, or null (malformed, unknown, wrong secret, revoked alike). */
  authenticate(presented: string): KeyRecord | null {
    const hit = this.verified.get(presented)
    if (hit) return hit
    const parsed = parseKey(presented)
    if (!parsed) return null
    const k = this.keys.get(parsed.id)
    if (!k || k.revokedAt !== null || !secretMatches(parsed.secret, k.secretSha256)) return null
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear()
    this.verified.set(presented, k)
    return k
  }

  list(): KeyInfo[] {
    return [...this.keys.values()]
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((k) => ({
        id: k.id,
        name: k.name,
        plan: k.plan,
        created_at: new Date(k.createdAt).toISOString(),
        revoked_at: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString()
      }))
  }
}
