/**
 * @module
 * The chain sources (docs/sources.md "Chain sources"): the watch lists (loaded when the module opens from
 * WATCHLIST_DIR; a bad list stops the start naming file and line), one `evm:<chain>` source per named chain
 * on the shared chain clients, the `solana` source, and the watch-list admin routes. The watch list's
 * exchange wallets also label exchange flows (engine/whales/exchange-wallets.ts). The sources' code (log
 * decoders, range scanners) is loaded when the module opens, and only when `SOURCES` names a chain source.
 */
import type { ChainClient } from '../../engine/chain/chain-client.js'
import type { ChainClientSet } from '../../engine/chain/chain-client-set.js'
import type { EvmChainName } from '../../engine/chain/chains.js'
import type { Logger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { WatchlistRegistry } from '../../engine/watchlist/registry.js'
import { setWatchedExchangeWallets } from '../../engine/whales/exchange-wallets.js'
import { isChainSourceName } from '../../ingest/sources/chain/chain-source-names.js'
import type { EvmWhaleSource } from '../../ingest/sources/chain/evm-whale-source.js'
import type { SolanaWhaleSource } from '../../ingest/sources/chain/solana-source.js'
import type { Source } from '../../ingest/sources/source.js'
import type { Config, SourceName } from '../config.js'
import type { Route } from '../http/types.js'
import { adminWatchlistRoutes } from '../routes/admin-watchlist.js'
import type { ServiceModule } from './service-module.js'

/** The source classes, loaded by `openChainSources` when a chain source is configured. */
interface SourceClasses {
  readonly EvmWhaleSource: typeof EvmWhaleSource
  readonly SolanaWhaleSource: typeof SolanaWhaleSource
}

/** Opens the module; loads the sources' code only when `config.sources` names a chain source. */
export async function openChainSources(
  config: Config,
  clients: ChainClientSet,
  deps: { readonly store: Store; readonly log: Logger }
): Promise<ChainSourcesModule> {
  let classes: SourceClasses | null = null
  if (config.sources.some(isChainSourceName)) {
    const [{ EvmWhaleSource }, { SolanaWhaleSource }] = await Promise.all([
      import('../../ingest/sources/chain/evm-whale-source.js'),
      import('../../ingest/sources/chain/solana-source.js')
    ])
    classes = { EvmWhaleSource, SolanaWhaleSource }
  }
  return new ChainSourcesModule(config, clients, deps, classes)
}

export class ChainSourcesModule implements ServiceModule {
  readonly name = 'chain sources'
  readonly watchlists: WatchlistRegistry

  constructor(
    private readonly config: Config,
    private readonly clients: ChainClientSet,
    private readonly deps: { readonly store: Store; readonly log: Logger },
    /** null when `config.sources` names no chain source */
    private readonly classes: SourceClasses | null
  ) {
    this.watchlists = new WatchlistRegistry(config.chainSources.watchlistDir)
    this.watchlists.onLoad((index) =>
      setWatchedExchangeWallets(index.list.wallets.filter((w) => w.entity === 'exchange'))
    )
  }

  private clientOf(chain: EvmChainName): ChainClient {
    const client = this.clients.get(chain)
    if (client === undefined) throw new Error(`no ${chain} node is configured`)
    return client
  }

  sourceFor(name: SourceName): Source | undefined {
    if (!isChainSourceName(name)) return undefined
    if (this.classes === null) throw new Error(`chain source ${name} is not in SOURCES`)
    const { EvmWhaleSource, SolanaWhaleSource } = this.classes
    const log = this.deps.log.child({ source: name })
    if (name === 'solana') {
      return new SolanaWhaleSource({
        settings: this.config.chainSources.solana,
        store: this.deps.store,
        watchlists: this.watchlists,
        log
      })
    }
    const chain = name.slice('evm:'.length) as EvmChainName
    return new EvmWhaleSource({
      chain,
      client: () => this.clientOf(chain),
      store: this.deps.store,
      watchlists: this.watchlists,
      settings: this.config.chainSources.evm[chain],
      log
    })
  }

  routes(): Route[] {
    return adminWatchlistRoutes(this.watchlists)
  }
}
