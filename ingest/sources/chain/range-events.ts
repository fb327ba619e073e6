/**
 * @module
 * The whale events of a block range of one EVM chain: the watch list in force (tracked tokens, watched
 * wallets) and the service's prices at the blocks' times, through the range fetcher (evm-fetch.ts) and the
 * per-transaction collapse (engine/whales/tx-events.ts). The watch list is read again for every range, so a
 * reload applies from the next range on; the fetcher's counters carry over.
 */
import type { ChainSpec, EvmChainName } from '../../../engine/chain/chains.js'
import type { Store } from '../../../engine/store/store.js'
import type { WatchlistRegistry } from '../../../engine/watchlist/registry.js'
import { StorePricer } from '../../../engine/whales/event-prices.js'
import { txEvents, type ChainWhaleEvent, type TxEventContext } from '../../../engine/whales/tx-events.js'
import { NATIVE } from '../../../engine/whales/tx-legs.js'
import { EvmRangeFetcher } from './evm-fetch.js'
import type { EvmRpc } from './evm-rpc.js'
import type { RangeChunker } from './range-chunker.js'
import { trackedTokens } from './tracked-tokens.js'

export interface RangeEventsOptions {
  readonly chain: EvmChainName
  readonly spec: ChainSpec
  readonly store: Store
  readonly watchlists: WatchlistRegistry
  /** an unwatched wallet is reported from this USD size */
  readonly minUsd: number
  /** the chain's wrapped native token, lower-case (chain-settings.ts, `<ENV>_WRAPPED_NATIVE`) */
  readonly wrappedNative: string
  readonly chunker: RangeChunker
}

export interface RangeRead {
  readonly events: ChainWhaleEvent[]
  /** hash of the range's last block */
  readonly toHash: string
  /** time of the range's last block, epoch ms */
  readonly toTs: number
}

export class RangeEvents {
  /** the fetcher of the last range read (its counters are the source's), null before the first */
  fetcher: EvmRangeFetcher | null = null
  /** the node, set when a run of the source starts */
  rpc: EvmRpc | null = null

  constructor(private readonly opts: RangeEventsOptions) {}

  /** the tracked tokens and watched wallets of this chain from the watch list in force */
  private context(pricer: StorePricer): { ctx: TxEventContext; fetcher: EvmRangeFetcher } {
    const { chain, spec, minUsd, wrappedNative: wrapped } = this.opts
    const index = this.opts.watchlists.current
    const tokens = trackedTokens(index, chain, spec.nativeSymbol, wrapped)
    const walletList = index.walletsOn(chain)
    const wallets = new Map(walletList.map((w) => [w.address, w]))
    const ctx: TxEventContext = {
      token: (a) => tokens.get(a),
      wallet: (a) => wallets.get(a),
      pricer,
      minUsd
    }
    const contracts = [...tokens.keys()].filter((a) => a !== NATIVE)
    const fetcher = new EvmRangeFetcher(
      {
        chain,
        rpc: this.rpc!,
        wrappedNative: wrapped,
        tokens: [...contracts, wrapped],
        token: (a) => tokens.get(a),
        wallets: new Set(wallets.keys()),
        pricer,
        minUsd
      },
      this.opts.chunker
    )
    // counters carry over reloads of the watch list
    if (this.fetcher !== null) Object.assign(fetcher.counters, this.fetcher.counters)
    this.fetcher = fetcher
    return { ctx, fetcher }
  }

  /** Events of blocks [from, to], priced at their block times. */
  async read(from: number, to: number): Promise<RangeRead> {
    const pricer = new StorePricer(this.opts.store)
    const { ctx, fetcher } = this.context(pricer)
    const last = await fetcher.header(to)
    const first = from === to ? last : await fetcher.header(from)
    const assets = [...new Set(this.opts.watchlists.current.tokensOn(this.opts.chain).map((t) => t.priceAsset))]
    await pricer.prepare([...assets, this.opts.spec.nativeSymbol], first.ts, last.ts)
    const txs = await fetcher.range(from, to, last.ts)
    const events = txs.flatMap((tx) => txEvents(tx, ctx))
    return { events, toHash: last.hash, toTs: last.ts }
  }

  /**
   * Block `n`'s header through the range fetcher (its counters). The first batch after a start has no fetcher
   * yet, and that is where a reorg while the service was down shows (the source's checkParent): one is made then.
   */
  header(n: number): ReturnType<EvmRangeFetcher['header']> {
    return (this.fetcher ?? this.context(new StorePricer(this.opts.store)).fetcher).header(n)
  }
}
