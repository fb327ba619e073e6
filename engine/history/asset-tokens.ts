/**
 * @module
 * Which on-chain tokens count as a base asset in whale statistics: the asset itself and its wrapped form
 * (BTC: BTC and WBTC; ETH: ETH and WETH). A stablecoin or any other token is only itself.
 */

/** Tokens whose whale flows count as `base`'s. */
export function assetTokens(base: string): string[] {
  const b = base.toUpperCase()
  return [b, `W${b}`]
}
