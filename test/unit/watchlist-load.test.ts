/**
 * Watch-list files (docs/watchlists.md): the shipped defaults load, every entry names a public source, and a
 * bad entry is refused with the file, line and column named; a failed reload keeps the lists in force.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { splitCsvLine } from '../../engine/watchlist/csv.js'
import { loadWatchlists, WatchlistError } from '../../engine/watchlist/load.js'
import { WatchlistRegistry } from '../../engine/watchlist/registry.js'

const SHIPPED = path.resolve('watchlists')
const TOKENS_HEADER = 'chain,address,symbol,decimals,price_asset,source'
const WALLETS_HEADER = 'chain,address,label,entity,owner,source'
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'

const dirs: string[] = []
function dirWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'watchlist-'))
  dirs.push(dir)
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content)
  return dir
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function problem(files: Record<string, string>): string {
  try {
    loadWatchlists(dirWith(files))
  } catch (err) {
    expect(err).toBeInstanceOf(WatchlistError)
    return (err as Error).message
  }
  throw new Error('the lists loaded')
}

describe('watch lists', () => {
  it('loads the shipped defaults, every entry with an http(s) source', () => {
    const list = loadWatchlists(SHIPPED)
    expect(list.wallets.length).toBeGreaterThan(0)
    expect(list.tokens.length).toBeGreaterThan(0)
    for (const e of [...list.wallets, ...list.tokens]) expect(e.source).toMatch(/^https:\/\//)
    const weth = list.tokens.find((t) => t.chain === 'ethereum' && t.symbol === 'WETH')
    expect(weth).toMatchObject({ address: WETH.toLowerCase(), decimals: 18, priceAsset: 'ETH' })
    expect(list.files.map((f) => f.kind).sort()).toEqual(['tokens', 'wallets'])
  })

  it('lower-cases EVM addresses, keeps Solana ones, defaults owner to the label, skips comments', () => {
    const list = loadWatchlists(
      dirWith({
        'a.wallets.csv': `# comment\nchain,address,label,entity,source\n\nethereum,${WETH},"Fund ""X""",fund,https://x.test/a\n`,
        'a.tokens.csv': `${TOKENS_HEADER}\nsolana,EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v,usdc,6,USD,https://x.test/b\n`
      })
    )
    expect(list.wallets[0]).toEqual({
      chain: 'ethereum',
      address: WETH.toLowerCase(),
      label: 'Fund "X"',
      entity: 'fund',
      owner: 'Fund "X"',
      source: 'https://x.test/a'
    })
    expect(list.tokens[0]).toMatchObject({ address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', symbol: 'USDC' })
  })

  it('names file, line and column of a bad entry', () => {
    const good = `ethereum,${WETH},WETH,18,ETH,https://x.test/`
    expect(problem({ 'x.tokens.csv': `${TOKENS_HEADER}\n${good}\nethereum,0x12,USDC,6,USD,https://x.test/\n` })).toBe(
      "x.tokens.csv line 3, column address: '0x12' is not 0x followed by 40 hex digits"
    )
    expect(problem({ 'x.tokens.csv': `${TOKENS_HEADER}\n${good.replace(',18,', ',40,')}\n` })).toMatch(
      /^x\.tokens\.csv line 2, column decimals: '40' must be an integer from 0 to 36/
    )
    expect(problem({ 'x.tokens.csv': `${TOKENS_HEADER}\n${good.replace('ethereum', 'tron')}\n` })).toMatch(
      /^x\.tokens\.csv line 2, column chain: 'tron' is not one of ethereum/
    )
    expect(problem({ 'x.tokens.csv': `${TOKENS_HEADER}\n${good.replace('https://x.test/', 'etherscan')}\n` })).toMatch(
      /^x\.tokens\.csv line 2, column source: must be the http\(s\) address/
    )
    expect(problem({ 'w.wallets.csv': `${WALLETS_HEADER}\nethereum,${WETH},A,villain,A,https://x.test/\n` })).toMatch(
      /^w\.wallets\.csv line 2, column entity: 'villain' is not one of exchange/
    )
    expect(problem({ 'w.wallets.csv': `chain,address,label,entity,colour,source\n` })).toMatch(
      /^w\.wallets\.csv line 1, column colour: unknown column/
    )
    expect(problem({ 'w.wallets.csv': `chain,address,label,entity\n` })).toBe(
      'w.wallets.csv line 1, column source: missing column in the header'
    )
    expect(problem({ 'w.wallets.csv': `${WALLETS_HEADER}\nethereum,${WETH},"A,x\n` })).toMatch(
      /^w\.wallets\.csv line 2: unterminated quote/
    )
    expect(problem({ 'x.tokens.csv': `${TOKENS_HEADER}\nethereum,${WETH},WETH,18\n` })).toBe(
      'x.tokens.csv line 2: 4 fields, the header has 6'
    )
  })

  it('refuses one chain + address listed twice, naming both places (any case)', () => {
    const row = (a: string) => `ethereum,${a},A,whale,A,https://x.test/`
    expect(
      problem({
        'a.wallets.csv': `${WALLETS_HEADER}\n${row(WETH)}\n`,
        'b.wallets.csv': `${WALLETS_HEADER}\n\n${row(WETH.toLowerCase())}\n`
      })
    ).toBe(
      `b.wallets.csv line 3, column address: wallet ethereum:${WETH.toLowerCase()} is listed twice (first in a.wallets.csv line 2)`
    )
  })

  it('a failed reload keeps the lists in force; a good one replaces them', () => {
    const dir = dirWith({ 'a.wallets.csv': `${WALLETS_HEADER}\nethereum,${WETH},A,whale,A,https://x.test/\n` })
    const registry = new WatchlistRegistry(dir)
    expect(registry.current.wallet('ethereum', WETH.toLowerCase())?.label).toBe('A')
    fs.writeFileSync(path.join(dir, 'a.wallets.csv'), `${WALLETS_HEADER}\nethereum,nope,A,whale,A,https://x.test/\n`)
    const failed = registry.reload()
    expect(failed.ok).toBe(false)
    expect(failed.error).toMatch(/a\.wallets\.csv line 2, column address/)
    expect(registry.current.wallet('ethereum', WETH.toLowerCase())?.label).toBe('A')
    fs.writeFileSync(path.join(dir, 'a.wallets.csv'), `${WALLETS_HEADER}\nethereum,${WETH},B,fund,B,https://x.test/\n`)
    expect(registry.reload().ok).toBe(true)
    expect(registry.current.wallet('ethereum', WETH.toLowerCase())).toMatchObject({ label: 'B', entity: 'fund' })
    expect(registry.generation).toBe(2)
  })

  it('splits quoted fields', () => {
    expect(splitCsvLine('a,"b,c",""""," d "')).toEqual(['a', 'b,c', '"', 'd'])
    expect(splitCsvLine('')).toEqual([''])
  })
})
