/**
 * @module
 * Watch-list entries (docs/watchlists.md): the wallets whose labels the whale tracker shows, and the tokens
 * it follows and how it prices them. Addresses are stored lower-case for EVM chains (0x + 40 hex) and as
 * given for Solana (base58 is case-sensitive). Every entry names the public source of its label.
 */
import type { Chain } from '../records/types.js'

/** what kind of holder a labelled wallet is */
export type EntityKind = 'exchange' | 'fund' | 'whale' | 'bridge' | 'market_maker' | 'protocol' | 'other'

export const ENTITY_KINDS: readonly EntityKind[] = [
  'exchange',
  'fund',
  'whale',
  'bridge',
  'market_maker',
  'protocol',
  'other'
]

export interface WatchedWallet {
  readonly chain: Chain
  /** lower-case 0x hex on EVM chains, base58 on Solana */
  readonly address: string
  /** the holder as the source names it, e.g. `Binance 14` */
  readonly label: string
  readonly entity: EntityKind
  /**
   * the holder's name without the wallet number, e.g. `Binance`: two wallets of the same exchange move
   * money `internal`ly (left out of exchange flows). Defaults to the label.
   */
  readonly owner: string
  /** public page that states the label (explorer label page, the holder's own disclosure) */
  readonly source: string
}

export interface WatchedToken {
  readonly chain: Chain
  /** contract address (lower-case 0x hex) or SPL mint (base58); `native` for the chain's coin */
  readonly address: string
  readonly symbol: string
  /** decimals of the raw integer amount, 0..36 */
  readonly decimals: number
  /**
   * the asset whose USD price values the token: `USD` for stablecoins (valued at 1), else a base such as
   * `ETH`, `BTC`, `BNB` whose perpetual trades or candles give the price
   */
  readonly priceAsset: string
  readonly source: string
}

/** Where an entry was read from, for error messages and the admin listing. */
export interface WatchlistFile {
  readonly file: string
  readonly kind: 'wallets' | 'tokens'
  readonly entries: number
}

/** One loaded set of watch lists; immutable once built. */
export interface Watchlist {
  readonly wallets: readonly WatchedWallet[]
  readonly tokens: readonly WatchedToken[]
  readonly files: readonly WatchlistFile[]
  /** epoch ms of the load */
  readonly loadedAt: number
}
