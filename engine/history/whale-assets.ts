/**
 * @module
 * Which whale-transfer tokens an `asset` of the whale history stands for. An asset counts its own token and
 * the wrapped or bridged forms backed 1:1 by it (BTC: BTC, WBTC, BTCB, CBBTC; ETH: ETH, WETH; ...), so
 * moving WBTC is moving BTC. Anything else, stablecoins included, is its own token only (USDT is USDT;
 * USDT and USDC are not pooled). Tokens compare by their upper-case symbol. A wrapped token asked for by
 * name (WBTC) is that token alone.
 */
import { CHAINS } from '../../catalog/chains.js'

/**
 * Bridged or legacy forms folded into an asset beyond each EVM chain's wrapped native coin (which comes from
 * catalog/chains.ts `wrappedSymbol`), upper case.
 */
const BRIDGED: Readonly<Record<string, readonly string[]>> = {
  BTC: ['WBTC', 'BTCB', 'CBBTC'],
  POL: ['MATIC', 'WMATIC'],
  SOL: ['WSOL']
}

/** Every asset's folded forms: the catalog's wrapped natives first, then the bridged forms, each once. */
const WRAPPED: Readonly<Record<string, readonly string[]>> = (() => {
  const forms = new Map<string, string[]>()
  const add = (asset: string, token: string): void => {
    const list = forms.get(asset) ?? []
    if (!list.includes(token)) list.push(token)
    forms.set(asset, list)
  }
  for (const c of CHAINS) if (c.evm) add(c.evm.nativeSymbol.toUpperCase(), c.evm.wrappedSymbol.toUpperCase())
  for (const [asset, tokens] of Object.entries(BRIDGED)) for (const t of tokens) add(asset, t)
  return Object.fromEntries(forms)
})()

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
