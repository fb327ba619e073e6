/**
 * @module
 * How the catalog's names are written into messages and descriptions: `Binance, Bybit or OKX`.
 * Neutral (no imports), so every layer and the dashboard can use it.
 */

/** `a`, `a or b`, `a, b or c` (no serial comma); `conjunction` is `or` or `and`. */
export function listText(items: readonly string[], conjunction: 'or' | 'and'): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`
}
