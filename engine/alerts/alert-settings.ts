/**
 * @module
 * Per API key: the alert secret (its digest) and the alert settings, persisted in `alert_settings` and held
 * in memory so an alert's check is one map lookup and one SHA-256. A rotation, a removal or a settings
 * change updates memory once the store has it, and takes effect at once on this server; `load` reloads
 * every KEY_RELOAD_MS like the keys (engine/access/key-registry.ts), keeping for each key the newest of
 * memory and store, so a reload that read the table before a local change never undoes it.
 */
import type { Store } from '../store/store.js'
import { alertSecretMatches, generateAlertSecret, parseAlertSecret } from './alert-secret.js'
import { sqlTime } from '../store/sql-time.js'

export interface AlertSettings {
  readonly keyId: string
  /** hex SHA-256 of the secret's random part; '' when the key has no alert secret (alerts refused) */
  readonly secretSha256: string
  /** epoch ms the current secret was created; null without one */
  readonly secretCreatedAt: number | null
  /** publish each accepted alert as a SIGNAL event to the key's own webhooks */
  readonly forward: boolean
  /** bars of a strategy's timeframe without an alert before it is declared silent; 0: no silence check */
  readonly silenceBars: number
  /** epoch ms of the last change */
  readonly updatedAt: number
  /** row version: the newest wins, in the table (ReplacingMergeTree) and in memory */
  readonly version: number
}

interface Row {
  key_id: string
  secret_sha256: string
  secret_created_ms: number | null
  forward: number
  silence_bars: number
  updated_ms: number
  version: number
}

export class AlertSettingsRegistry {
  private byKey = new Map<string, AlertSettings>()
  private lastVersion = 0
  /** the change of each key being written (changes of one key are serialized) */
  private readonly writing = new Map<string, Promise<AlertSettings>>()

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now
  ) {}

  async load(): Promise<void> {
    const rows = await this.store.query<Row>(
      `SELECT key_id, secret_sha256,
              if(isNull(secret_created_at), NULL, toUnixTimestamp64Milli(assumeNotNull(secret_created_at))) AS secret_created_ms,
              forward, silence_bars, toUnixTimestamp64Milli(updated_at) AS updated_ms, version
       FROM alert_settings FINAL`
    )
    const next = new Map<string, AlertSettings>()
    for (const r of rows) {
      next.set(r.key_id, {
        keyId: r.key_id,
        secretSha256: r.secret_sha256,
        secretCreatedAt: r.secret_created_ms,
        forward: r.forward === 1,
        silenceBars: Number(r.silence_bars),
        updatedAt: r.updated_ms,
        version: Number(r.version)
      })
    }
    // a change made here while the query ran is newer than what it read
    for (const [id, mine] of this.byKey) {
      const read = next.get(id)
      if (!read || read.version < mine.version) next.set(id, mine)
    }
    this.byKey = next
  }

  /** A key's settings; a key that never set any has no secret and does not forward. */
  get(keyId: string): AlertSettings {
    return (
      this.byKey.get(keyId) ?? {
        keyId,
        secretSha256: '',
        secretCreatedAt: null,
        forward: false,
        silenceBars: 0,
        updatedAt: 0,
        version: 0
      }
    )
  }

  /**
   * The key id a presented alert secret belongs to, or null (malformed, unknown, replaced, removed alike).
   * Constant time in the secret; the caller checks that the key is still active.
   */
  authenticate(presented: string): string | null {
    const parsed = parseAlertSecret(presented)
    if (!parsed) return null
    const s = this.byKey.get(parsed.keyId)
    return alertSecretMatches(parsed.random, s?.secretSha256 ?? '') ? parsed.keyId : null
  }

  /** Creates or replaces the key's alert secret (the previous one stops working); the only time it is in clear. */
  async rotate(keyId: string): Promise<{ settings: AlertSettings; secret: string }> {
    const g = generateAlertSecret(keyId)
    const settings = await this.change(keyId, (at) => ({ secretSha256: g.secretSha256, secretCreatedAt: at }))
    return { settings, secret: g.secret }
  }

  /** Removes the key's alert secret: its alerts answer 401 from now on. */
  removeSecret(keyId: string): Promise<AlertSettings> {
    return this.change(keyId, () => ({ secretSha256: '', secretCreatedAt: null }))
  }

  /** Sets forwarding and the silence check; a field left undefined keeps its value. */
  update(keyId: string, change: { readonly forward?: boolean; readonly silenceBars?: number }): Promise<AlertSettings> {
    return this.change(keyId, () => ({
      ...(change.forward === undefined ? {} : { forward: change.forward }),
      ...(change.silenceBars === undefined ? {} : { silenceBars: change.silenceBars })
    }))
  }

  setForward(keyId: string, forward: boolean): Promise<AlertSettings> {
    return this.update(keyId, { forward })
  }

  /**
   * Applies one change to a key's settings. Changes of one key run one after the other, each from the
   * result of the previous (a rotation and a settings change sent together both hold).
   */
  private change(keyId: string, edit: (at: number) => Partial<AlertSettings>): Promise<AlertSettings> {
    const prev = this.writing.get(keyId) ?? Promise.resolve()
    const run = prev.then(
      () => this.write(keyId, edit),
      () => this.write(keyId, edit)
    )
    this.writing.set(keyId, run)
    const forget = (): void => {
      if (this.writing.get(keyId) === run) this.writing.delete(keyId)
    }
    run.then(forget, forget)
    return run
  }

  private async write(keyId: string, edit: (at: number) => Partial<AlertSettings>): Promise<AlertSettings> {
    const at = this.now()
    // microseconds, strictly increasing here: two changes in one millisecond keep their order
    const version = Math.max(at * 1000, this.lastVersion + 1)
    this.lastVersion = version
    const next: AlertSettings = { ...this.get(keyId), ...edit(at), keyId, updatedAt: at, version }
    await this.store.command(
      `INSERT INTO alert_settings (key_id, secret_sha256, secret_created_at, forward, silence_bars, updated_at, version)
       VALUES ({key_id:String}, {sha:String}, ${next.secretCreatedAt === null ? 'NULL' : '{created:DateTime64(3)}'},
               {forward:UInt8}, {silence_bars:UInt16}, {updated:DateTime64(3)}, {version:UInt64})`,
      {
        key_id: next.keyId,
        sha: next.secretSha256,
        ...(next.secretCreatedAt === null ? {} : { created: sqlTime(next.secretCreatedAt) }),
        forward: next.forward ? 1 : 0,
        silence_bars: next.silenceBars,
        updated: sqlTime(at),
        version
      }
    )
    const current = this.byKey.get(keyId)
    if (!current || current.version < version) this.byKey.set(keyId, next)
    return next
  }
}
