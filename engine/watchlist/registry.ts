/**
 * @module
 * The watch lists in force, with lookups by chain + address, reloadable at run time (POST
 * /v1/admin/watchlists/reload). A reload that fails keeps the lists in force and reports the problem; a
 * reload that succeeds replaces them at once (readers holding the previous `Watchlist` keep a consistent one).
 */
import type { Chain } from '../records/types.js'
import { loadWatchlists } from './load.js'
import type { WatchedToken, WatchedWallet, Watchlist } from './types.js'

/** Lookups over one Watchlist; EVM addresses must be passed lower-case. */
export class WatchlistIndex {
  private readonly wallets = new Map<string, WatchedWallet>()
  private readonly tokens = new Map<string, WatchedToken>()

  constructor(readonly list: Watchlist) {
    for (const w of list.wallets) this.wallets.set(`${w.chain}:${w.address}`, w)
    for (const t of list.tokens) this.tokens.set(`${t.chain}:${t.address}`, t)
  }

  wallet(chain: Chain | string, address: string): WatchedWallet | undefined {
    return this.wallets.get(`${chain}:${address}`)
  }

  token(chain: Chain | string, address: string): WatchedToken | undefined {
    return this.tokens.get(`${chain}:${address}`)
  }

  walletsOn(chain: Chain | string): WatchedWallet[] {
    return this.list.wallets.filter((w) => w.chain === chain)
  }

  tokensOn(chain: Chain | string): WatchedToken[] {
    return this.list.tokens.filter((t) => t.chain === chain)
  }

  /** lower-case EVM / exact Solana addresses of every exchange-labelled wallet, all chains */
  exchangeAddresses(): string[] {
    return this.list.wallets.filter((w) => w.entity === 'exchange').map((w) => w.address)
  }
}

export interface ReloadResult {
  readonly ok: boolean
  /** the problem, naming file, line and column, when not ok */
  readonly error?: string
  readonly list: Watchlist
}

export class WatchlistRegistry {
  private index: WatchlistIndex
  /** reloads that succeeded (the load at start is 1) */
  generation = 1
  reloadErrors = 0
  lastError: string | null = null
  private readonly listeners: Array<(index: WatchlistIndex) => void> = []

  /** Loads `dir` at once: a bad list stops the start (WatchlistError names file and line). */
  constructor(readonly dir: string) {
    this.index = new WatchlistIndex(loadWatchlists(dir))
  }

  get current(): WatchlistIndex {
    return this.index
  }

  /** `fn` runs with the lists in force now and after every successful reload */
  onLoad(fn: (index: WatchlistIndex) => void): void {
    this.listeners.push(fn)
    fn(this.index)
  }

  /** Reads the directory again; on a problem keeps the lists in force. Never throws. */
  reload(): ReloadResult {
    try {
      this.index = new WatchlistIndex(loadWatchlists(this.dir))
      this.generation += 1
      this.lastError = null
      for (const fn of this.listeners) fn(this.index)
      return { ok: true, list: this.index.list }
    } catch (err) {
      this.reloadErrors += 1
      this.lastError = (err as Error).message
      return { ok: false, error: this.lastError, list: this.index.list }
    }
  }
}
