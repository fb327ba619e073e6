/**
 * @module
 * The tokens an EVM chain source tracks, from the watch list in force: how each is shown and priced
 * (TokenInfo), keyed by contract address (lower-case) or NATIVE for the chain's coin.
 *
 * The coin and its wrapped token are one asset (NATIVE, engine/whales/net-deltas.ts): a wrap moves no value,
 * and a route that pays coin and takes wrapped coin back went round. That asset is labelled with the coin's
 * symbol from the catalog (catalog/chains.ts: ETH, BNB, AVAX, ...) and 18 decimals, whatever rows the watch
 * list has: its `native` row gives the price asset, else its wrapped-native row (the wrapped token's symbol
 * never names the coin), else the coin itself. The wrapped contract is not a token of its own here.
 */
import type { EvmChainName } from '../../../engine/chain/chains.js'
import type { WatchlistIndex } from '../../../engine/watchlist/registry.js'
import type { TokenInfo } from '../../../engine/whales/tx-events.js'
import { NATIVE } from '../../../engine/whales/tx-legs.js'

/** decimals of every EVM chain's coin (wei) */
const NATIVE_DECIMALS = 18

/**
 * the chain's tracked tokens, the coin (NATIVE) always included; `wrappedNative` lower-case (the source's
 * setting, `<ENV>_WRAPPED_NATIVE`)
 */
export function trackedTokens(
  watchlist: WatchlistIndex,
  chain: EvmChainName,
  nativeSymbol: string,
  wrappedNative: string
): Map<string, TokenInfo> {
  const tokens = new Map<string, TokenInfo>()
  let nativePrice: string | undefined
  let wrappedPrice: string | undefined
  for (const t of watchlist.tokensOn(chain)) {
    // the watch list names the coin `native` (docs/watchlists.md), the same text as NATIVE
    if (t.address === NATIVE) nativePrice = t.priceAsset
    else if (t.address === wrappedNative) wrappedPrice = t.priceAsset
    else tokens.set(t.address, { symbol: t.symbol, decimals: t.decimals, priceAsset: t.priceAsset })
  }
  tokens.set(NATIVE, {
    symbol: nativeSymbol,
    decimals: NATIVE_DECIMALS,
    priceAsset: nativePrice ?? wrappedPrice ?? nativeSymbol
  })
  return tokens
}
