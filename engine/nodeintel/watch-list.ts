/**
 * @module
 * The tokens API keys register for re-checks (POST/GET/DELETE /v1/node/{chain}/watch), across chains: the
 * per-key limit (NODEINTEL_WATCH_PER_KEY, all chains together), the registrations stored in `token_watch`
 * before they apply in memory (a failed write changes nothing), and loaded at start. Each chain's
 * TokenRecheck holds the tokens themselves.
 */
import type { Address } from 'viem'
import type { NodeIntelChain } from '../chain/chains.js'
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import { VersionClock } from '../webhooks/version-clock.js'
import type { TokenRecheck } from './recheck.js'
import type { VerdictPoint } from './verdict-change.js'
import { loadWatches, saveWatch, type WatchRow } from './watch-store.js'

export interface Registration {
  readonly chain: NodeIntelChain
  readonly token: Address
  /** epoch ms */
  readonly created_ms: number
}

export class WatchList {
  /** key id → `chain:token` → registration */
  private readonly byKey = new Map<string, Map<string, Registration>>()
  private readonly versions = new VersionClock()

  constructor(
    private readonly store: Store,
    private readonly perKey: number,
    private readonly chains: (chain: NodeIntelChain) => TokenRecheck | undefined
  ) {}

  /** Loads the stored registrations; their first checks run in the background (`onError` hears failures). */
  async load(onError: (err: unknown) => void): Promise<number> {
    const rows = await loadWatches(this.store)
    for (const r of rows) {
      this.remember(r)
      this.chains(r.chain)?.addKey(r.token, r.key_id).catch(onError)
    }
    return rows.length
  }

  private remember(r: WatchRow): void {
    let m = this.byKey.get(r.key_id)
    if (!m) this.byKey.set(r.key_id, (m = new Map()))
    m.set(`${r.chain}:${r.token}`, { chain: r.chain, token: r.token, created_ms: r.created_ms })
  }

  /** The key's registrations on `chain`, oldest first. */
  list(keyId: string, chain: NodeIntelChain): Registration[] {
    return [...(this.byKey.get(keyId)?.values() ?? [])].filter((r) => r.chain === chain)
  }

  /** Registrations of the key on every chain. */
  count(keyId: string): number {
    return this.byKey.get(keyId)?.size ?? 0
  }

  /** 403 when the key is at its limit (a token it already watches is not counted twice). */
  checkLimit(keyId: string, chain: NodeIntelChain, token: Address): void {
    if (this.byKey.get(keyId)?.has(`${chain}:${token}`)) return
    if (this.count(keyId) >= this.perKey) {
      throw new ApiError(
        'forbidden',
        `a key watches at most ${this.perKey} tokens (NODEINTEL_WATCH_PER_KEY), all chains together; remove one with DELETE /v1/node/{chain}/watch/{token}`,
        { details: { limit: this.perKey } }
      )
    }
  }

  /**
   * Registers `token` for the key (stored first), then makes its chain watch it and waits for its first
   * check. Answers whether it was new and the token's last verdict (null when the first check failed).
   */
  async add(
    keyId: string,
    chain: NodeIntelChain,
    token: Address,
    recheck: TokenRecheck
  ): Promise<{ created: boolean; registration: Registration; verdict: VerdictPoint | null }> {
    this.checkLimit(keyId, chain, token)
    const existing = this.byKey.get(keyId)?.get(`${chain}:${token}`)
    let registration = existing
    if (!registration) {
      const row: WatchRow = { key_id: keyId, chain, token, created_ms: Date.now() }
      await saveWatch(this.store, row, false, this.versions.next())
      this.remember(row)
      registration = { chain, token, created_ms: row.created_ms }
    }
    const verdict = await recheck.addKey(token, keyId).catch(() => recheck.lastVerdict(token))
    return { created: !existing, registration, verdict }
  }

  /** Removes the key's registration; false when it had none. */
  async remove(keyId: string, chain: NodeIntelChain, token: Address): Promise<boolean> {
    const r = this.byKey.get(keyId)?.get(`${chain}:${token}`)
    if (!r) return false
    await saveWatch(this.store, { key_id: keyId, ...r }, true, this.versions.next())
    this.byKey.get(keyId)!.delete(`${chain}:${token}`)
    this.chains(chain)?.removeKey(token, keyId)
    return true
  }
}
