/**
 * @module
 * Which whale-transfer tokens an `asset` of the whale history stands for. An asset counts its own token and
 * the wrapped or bridged forms backed 1:1 by it (BTC: BTC, WBTC, BTCB, CBBTC; ETH: ETH, WETH; ...), so
 * moving WBTC is moving BTC. Anything else, stablecoins included, is its own token only (USDT is USDT;
 * USDT and USDC are not pooled). Tokens compare by their upper-case symbol. A wrapped token asked for by
 * name (WBTC) is that token alone.
 */

/** Wrapped or bridged forms folded into an asset, upper case (the demo market moves WBTC and WETH). */
const WRAPPED: Readonly<Record<string, readonly string[]>> = {
  BTC: ['WBTC', 'BTCB', 'CBBTC'],
  ETH: ['WETH'],
  BNB: ['WBNB'],
  AVAX: ['WAVAX'],
  POL: ['WPOL', 'MATIC', 'WMATIC'],
  SOL: ['WSOL']
}

const ASSET_OF_TOKEN: ReadonlyMap<string, string> = new Map(
  Object.entries(WRAPPED).flatMap(([asset, tokens]) => tokens.map((t) => [t, asset] as const))
)

/** The upper-case tokens an asset stands for, its own first. */
export function tokensOf(asset: string): string[] {
  const a = asset.trim().toUpperCase()
  return [a, ...(WRAPPED[a] ?? [])]
}

/** The asset a token is counted under (WBTC -> BTC; USDT -> USDT). */
export function assetOfToken(token: string): string {
  const t = token.toUpperCase()
  return ASSET_OF_TOKEN.get(t) ?? t
}

/** The distinct assets of a token list, sorted (for messages naming what there is). */
export function assetsOf(tokens: Iterable<string>): string[] {
  return [...new Set([...tokens].map(assetOfToken))].sort()
}
