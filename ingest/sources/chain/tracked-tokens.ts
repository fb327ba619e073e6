/**
 * @module
 * The tokens an EVM chain source tracks, from the watch list in force: how each is shown and priced
 * (TokenInfo), keyed by contract address (lower-case) or NATIVE for the chain's coin, with the wrapped native
 * mapped onto the coin (one asset, engine/whales/net-deltas.ts).
 */
import type { ChainSpec, EvmChainName } from '../../../engine/chain/chains.js'
import type { WatchlistIndex } from '../../../engine/watchlist/registry.js'
import type { TokenInfo } from '../../../engine/whales/tx-events.js'
import { NATIVE } from '../../../engine/whales/tx-legs.js'

/** the chain's tracked tokens, the coin (NATIVE) always included */
export function trackedTokens(
  watchlist: WatchlistIndex,
  chain: EvmChainName,
  spec: ChainSpec,
  wrappedNative: string
): Map<string, TokenInfo> {
  const tokens = new Map<string, TokenInfo>()
  for (const t of watchlist.tokensOn(chain)) {
    tokens.set(t.address === wrappedNative ? NATIVE : t.address, {
      symbol: t.symbol,
      decimals: t.decimals,
      priceAsset: t.priceAsset
    })
  }
  if (!tokens.has(NATIVE)) {
    tokens.set(NATIVE, { symbol: spec.nativeSymbol, decimals: 18, priceAsset: spec.nativeSymbol })
  }
  return tokens
}
