/**
 * @module
 * Re-checks of one chain's watched tokens (docs/node-intel.md, "Watch list and re-checks"). A token is
 * watched while an API key registers it or while it is one of the newest NODEINTEL_WATCH_NEW_PAIRS tokens
 * of new pairs. `poll()` reads the blocks since the last poll (at most MAX_BLOCKS per poll; the first poll
 * starts at the head) for triggers (recheck-scan.ts) and queues one honeypot check per token (a token
 * already queued is not queued twice, its check takes the newest trigger; CHECK_CONCURRENCY run at once,
 * QUEUE_MAX wait, beyond that a trigger is dropped and counted). The first check of a token stores its baseline row; later checks store a row,
 * and tell the listeners, only when something changed (verdict-change.ts).
 */
import type { Address, PublicClient } from 'viem'
import { errorText, isTransportError } from '../chain/rpc-errors.js'
import type { NodeIntelChain } from '../chain/chains.js'
import { Semaphore } from '../runtime/semaphore.js'
import type { Store } from '../store/store.js'
import { scanTriggers } from './recheck-scan.js'
import type { ChainIntel } from './service.js'
import { OWNER_ABI } from './token-facts.js'
import { changesBetween, pointOf, type ChangedField, type RecheckTrigger, type VerdictPoint } from './verdict-change.js'
import type { WatchConfig } from './watch-config.js'
import { insertVerdict, latestVerdict, type VerdictRow } from './watch-store.js'

/** blocks read per poll at most (a node far ahead is caught up over several polls) */
const MAX_BLOCKS = 20n
/** re-checks in flight at once, per chain */
const CHECK_CONCURRENCY = 4
/** re-checks waiting at most, per chain */
const QUEUE_MAX = 1_000
/** changes kept for the stream channel's snapshot, per chain */
const RECENT_CHANGES = 50

export interface TokenRiskChange {
  readonly chain: NodeIntelChain
  readonly token: Address
  readonly before: VerdictPoint
  readonly after: VerdictPoint
  readonly changed: readonly ChangedField[]
  readonly trigger: RecheckTrigger
  /** the keys that registered the token (their webhooks get the event) */
  readonly keys: readonly string[]
  /** the token is watched as a new pair (every TOKEN_RISK_CHANGED webhook gets the event) */
  readonly new_pair: boolean
}

interface Watched {
  readonly keys: Set<string>
  newPair: boolean
  /** owner() / getOwner() as last read; null: none */
  owner: Address | null
  /** the last verdict recorded; null until the first check */
  last: VerdictPoint | null
}

export interface RecheckStats {
  readonly watched: number
  readonly last_block: number | null
  readonly triggers: number
  readonly rechecks: number
  readonly changes: number
  readonly errors: number
  readonly dropped: number
}

const ZERO = /^0x0{40}$/i
/** the trigger of a token's first check on the watch list */
const WATCH: RecheckTrigger = { kind: 'watch', tx_hash: null, block_number: null, detail: null, from: null }

export class TokenRecheck {
  private readonly watched = new Map<Address, Watched>()
  /** new-pair tokens, oldest first (bounded by cfg.newPairs) */
  private newPairs: Address[] = []
  private lastBlock: bigint | null = null
  private readonly checks = new Semaphore(CHECK_CONCURRENCY, QUEUE_MAX)
  /** tokens queued and not yet started, with the trigger their check will record (the newest) */
  private readonly queued = new Map<Address, { trigger: RecheckTrigger; fresh: boolean }>()
  /** the check of a token in flight (the next one of the same token waits for it) */
  private readonly inflight = new Map<Address, Promise<VerdictPoint | null>>()
  private readonly listeners = new Set<(c: TokenRiskChange) => void>()
  private readonly recentChanges: TokenRiskChange[] = []
  private counts = { triggers: 0, rechecks: 0, changes: 0, errors: 0, dropped: 0 }
  /** failures of background checks (logged by the module) */
  onError: (token: Address, err: unknown) => void = () => {}

  constructor(
    private readonly intel: ChainIntel,
    private readonly store: Store,
    private readonly cfg: WatchConfig
  ) {}

  get chain(): NodeIntelChain {
    return this.intel.chain
  }

  subscribe(fn: (c: TokenRiskChange) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** the newest changes, newest first */
  recent(n: number): readonly TokenRiskChange[] {
    return this.recentChanges.slice(-n).reverse()
  }

  /** the last verdict recorded for a watched token (null: not watched or not checked yet) */
  lastVerdict(token: Address): VerdictPoint | null {
    return this.watched.get(token)?.last ?? null
  }

  /** A key watches `token`; its first check runs when the token was not watched before (awaited). */
  async addKey(token: Address, keyId: string): Promise<VerdictPoint | null> {
    const w = this.watched.get(token)
    if (w) {
      w.keys.add(keyId)
      // watched as a new pair whose first check has not run yet: check now (after any check in flight)
      return w.last ?? this.recheck(token, WATCH, false)
    }
    this.watched.set(token, { keys: new Set([keyId]), newPair: false, owner: null, last: null })
    return this.recheck(token, WATCH, true)
  }

  removeKey(token: Address, keyId: string): void {
    const w = this.watched.get(token)
    if (!w) return
    w.keys.delete(keyId)
    if (w.keys.size === 0 && !w.newPair) this.watched.delete(token)
  }

  /** A new pair's token joins the watch list (the oldest new-pair token leaves beyond cfg.newPairs). */
  addNewPair(token: Address): void {
    if (this.cfg.newPairs === 0) return
    const w = this.watched.get(token)
    if (w?.newPair) return
    if (w) w.newPair = true
    else this.watched.set(token, { keys: new Set(), newPair: true, owner: null, last: null })
    this.newPairs.push(token)
    while (this.newPairs.length > this.cfg.newPairs) {
      const old = this.newPairs.shift()!
      const o = this.watched.get(old)
      if (!o) continue
      o.newPair = false
      if (o.keys.size === 0) this.watched.delete(old)
    }
    // the new-pairs watcher has just checked it: its answer is in the cache
    this.enqueue(token, WATCH, false)
  }

  /** Reads the blocks since the last poll for triggers and queues their re-checks. */
  async poll(): Promise<void> {
    const client = this.intel.client
    const head = await client.request('recheck_head', (c) => c.getBlockNumber({ cacheTime: 0 }))
    if (this.lastBlock === null || head < this.lastBlock) {
      this.lastBlock = head
      return
    }
    if (head === this.lastBlock) return
    const from = this.lastBlock + 1n
    const to = head - from >= MAX_BLOCKS ? from + MAX_BLOCKS - 1n : head
    const tokens = [...this.watched.keys()]
    if (tokens.length > 0) {
      const owners = new Map<Address, Address>()
      for (const [t, w] of this.watched) if (w.owner) owners.set(t, w.owner)
      const found = await scanTriggers(client, tokens, owners, from, to)
      // oldest first, so a token's queued check ends up with its newest trigger
      found.sort((a, b) => (a.trigger.block_number ?? 0) - (b.trigger.block_number ?? 0))
      for (const f of found) {
        if (!this.watched.has(f.token)) continue
        this.counts.triggers++
        this.enqueue(f.token, f.trigger, true)
      }
    }
    this.lastBlock = to
  }

  /**
   * Queues a check of `token`. A token already waiting keeps its one place and takes the newer trigger:
   * the check runs after both, and what it finds is the newer transaction's doing at the earliest.
   */
  private enqueue(token: Address, trigger: RecheckTrigger, fresh: boolean): void {
    const waiting = this.queued.get(token)
    if (waiting) {
      this.queued.set(token, { trigger, fresh: fresh || waiting.fresh })
      return
    }
    if (this.checks.waiting >= QUEUE_MAX) {
      this.counts.dropped++
      return
    }
    this.queued.set(token, { trigger, fresh })
    void this.checks
      .run(() => {
        const q = this.queued.get(token)!
        this.queued.delete(token)
        return this.recheck(token, q.trigger, q.fresh)
      })
      .catch((err: unknown) => {
        this.queued.delete(token)
        this.counts.errors++
        this.onError(token, err)
      })
  }

  /**
   * Checks `token` after any check of it in flight (checks of one token never overlap, so each compares
   * with the verdict the one before recorded); records and announces a change. Resolves to its verdict.
   */
  private recheck(token: Address, trigger: RecheckTrigger, fresh: boolean): Promise<VerdictPoint | null> {
    const prev = this.inflight.get(token)
    const next = (prev ? prev.catch(() => null) : Promise.resolve(null)).then(() => this.check(token, trigger, fresh))
    this.inflight.set(token, next)
    const clear = (): void => {
      if (this.inflight.get(token) === next) this.inflight.delete(token)
    }
    next.then(clear, clear)
    return next
  }

  private async check(token: Address, trigger: RecheckTrigger, fresh: boolean): Promise<VerdictPoint | null> {
    const w = this.watched.get(token)
    if (!w) return null
    this.counts.rechecks++
    const [{ value }, owner] = await Promise.all([
      this.intel.honeypot(token, fresh, BigInt(trigger.block_number ?? 0)),
      this.owner(token)
    ])
    w.owner = owner
    const after = pointOf(value)
    const before = w.last ?? (await this.stored(token))
    const changed = before === null ? [] : changesBetween(before, after, this.cfg.taxDeltaPct)
    if (before === null || changed.length > 0) {
      const row: VerdictRow = { chain: this.chain, token, ...after, changed, trigger }
      await insertVerdict(this.store, row)
    }
    w.last = before !== null && changed.length === 0 ? before : after
    if (before !== null && changed.length > 0) {
      this.counts.changes++
      const change: TokenRiskChange = {
        chain: this.chain,
        token,
        before,
        after,
        changed,
        trigger,
        keys: [...w.keys],
        new_pair: w.newPair
      }
      this.recentChanges.push(change)
      if (this.recentChanges.length > RECENT_CHANGES) this.recentChanges.shift()
      for (const fn of this.listeners) fn(change)
    }
    return w.last
  }

  /** the newest stored verdict (a token watched before a restart), or null */
  private async stored(token: Address): Promise<VerdictPoint | null> {
    const r = await latestVerdict(this.store, this.chain, token)
    if (!r) return null
    const { chain: _c, token: _t, changed: _ch, trigger: _tr, ...point } = r
    return point
  }

  /** owner() or getOwner(); null when the token has neither or it is renounced to 0x0 */
  private async owner(token: Address): Promise<Address | null> {
    const read = (c: PublicClient, functionName: 'owner' | 'getOwner') =>
      c.readContract({ address: token, abi: OWNER_ABI, functionName }).catch((err: unknown) => {
        if (isTransportError(err)) throw err
        return null // no such function
      })
    try {
      const [a, b] = await this.intel.client.request('recheck_owner', (c) =>
        Promise.all([read(c, 'owner'), read(c, 'getOwner')])
      )
      const o = a ?? b
      return o === null || ZERO.test(o) ? null : o
    } catch (err) {
      throw new Error(`owner of ${token}: ${errorText(err)}`, { cause: err })
    }
  }

  stats(): RecheckStats {
    return {
      watched: this.watched.size,
      last_block: this.lastBlock === null ? null : Number(this.lastBlock),
      ...this.counts
    }
  }
}
