/**
 * @module
 * Loads the watch lists of a directory (WATCHLIST_DIR; default the shipped `watchlists/`): every
 * `*.wallets.csv` and `*.tokens.csv` in it, in file-name order (docs/watchlists.md). All or nothing: the first
 * problem throws a WatchlistError naming file, line and column, and nothing of the directory is used.
 */
import fs from 'node:fs'
import path from 'node:path'
import { CHAINS, type Chain } from '../records/types.js'
import { csvRows, type CsvRow } from './csv.js'
import {
  ENTITY_KINDS,
  type EntityKind,
  type WatchedToken,
  type WatchedWallet,
  type Watchlist,
  type WatchlistFile
} from './types.js'

export const WALLET_COLUMNS = ['chain', 'address', 'label', 'entity', 'owner', 'source'] as const
export const TOKEN_COLUMNS = ['chain', 'address', 'symbol', 'decimals', 'price_asset', 'source'] as const
/** the column `owner` may be left out of wallet files (it then equals the label) */
const OPTIONAL_WALLET_COLUMNS: readonly string[] = ['owner']

/** Entries per directory at most: a safety bound (the tracker keeps them all in memory and in one filter). */
export const MAX_ENTRIES = 50_000

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
/** base58 (no 0, O, I, l), 32 to 44 characters: a Solana public key */
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
const SYMBOL = /^[A-Za-z0-9.$_-]{1,20}$/
const PRICE_ASSET = /^[A-Z0-9]{1,12}$/

export class WatchlistError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: string | null,
    problem: string
  ) {
    super(`${file}${line > 0 ? ` line ${line}` : ''}${column ? `, column ${column}` : ''}: ${problem}`)
    this.name = 'WatchlistError'
  }
}

type Record_ = Readonly<Record<string, string>>

/** The header's columns checked against the known ones; returns the rows as column → value. */
function records(
  file: string,
  content: string,
  known: readonly string[],
  optional: readonly string[]
): Array<{ line: number; r: Record_ }> {
  let rows: CsvRow[]
  try {
    rows = csvRows(content)
  } catch (err) {
    throw new WatchlistError(file, (err as { line?: number }).line ?? 0, null, (err as Error).message)
  }
  const header = rows[0]
  if (header === undefined) return []
  const cols = header.fields.map((f) => f.toLowerCase())
  for (const c of cols) {
    if (!known.includes(c))
      throw new WatchlistError(file, header.line, c, `unknown column; columns are ${known.join(', ')}`)
  }
  for (const c of known) {
    if (!cols.includes(c) && !optional.includes(c))
      throw new WatchlistError(file, header.line, c, 'missing column in the header')
  }
  return rows.slice(1).map(({ line, fields }) => {
    if (fields.length !== cols.length) {
      throw new WatchlistError(file, line, null, `${fields.length} fields, the header has ${cols.length}`)
    }
    return { line, r: Object.fromEntries(cols.map((c, i) => [c, fields[i]!])) }
  })
}

function chainOf(file: string, line: number, value: string): Chain {
  if (!(CHAINS as readonly string[]).includes(value)) {
    throw new WatchlistError(file, line, 'chain', `'${value}' is not one of ${CHAINS.join(', ')}`)
  }
  return value as Chain
}

/** EVM addresses lower-cased; Solana base58 kept; `native` allowed for tokens only. */
function addressOf(file: string, line: number, chain: Chain, value: string, nativeOk: boolean): string {
  if (nativeOk && value === 'native') return value
  if (chain === 'solana') {
    if (!SOLANA_ADDRESS.test(value))
      throw new WatchlistError(file, line, 'address', `'${value}' is not a base58 Solana address`)
    return value
  }
  if (!EVM_ADDRESS.test(value))
    throw new WatchlistError(file, line, 'address', `'${value}' is not 0x followed by 40 hex digits`)
  return value.toLowerCase()
}

function sourceOf(file: string, line: number, value: string): string {
  if (!/^https?:\/\/\S+$/.test(value)) {
    throw new WatchlistError(file, line, 'source', 'must be the http(s) address of the public page stating the entry')
  }
  return value
}

function text(file: string, line: number, column: string, value: string | undefined, max: number): string {
  if (value === undefined || value === '' || value.length > max) {
    throw new WatchlistError(file, line, column, `must be 1 to ${max} characters`)
  }
  return value
}

type Lined<T> = T & { readonly line: number }

function parseWallets(file: string, content: string): Array<Lined<WatchedWallet>> {
  return records(file, content, WALLET_COLUMNS, OPTIONAL_WALLET_COLUMNS).map(({ line, r }) => {
    const chain = chainOf(file, line, r['chain']!)
    const entity = r['entity']!
    if (!(ENTITY_KINDS as readonly string[]).includes(entity)) {
      throw new WatchlistError(file, line, 'entity', `'${entity}' is not one of ${ENTITY_KINDS.join(', ')}`)
    }
    const label = text(file, line, 'label', r['label'], 80)
    return {
      line,
      chain,
      address: addressOf(file, line, chain, r['address']!, false),
      label,
      entity: entity as EntityKind,
      owner: r['owner'] ? text(file, line, 'owner', r['owner'], 80) : label,
      source: sourceOf(file, line, r['source']!)
    }
  })
}

function parseTokens(file: string, content: string): Array<Lined<WatchedToken>> {
  return records(file, content, TOKEN_COLUMNS, []).map(({ line, r }) => {
    const chain = chainOf(file, line, r['chain']!)
    const symbol = r['symbol']!
    if (!SYMBOL.test(symbol))
      throw new WatchlistError(file, line, 'symbol', `'${symbol}' must be 1 to 20 letters, digits or . $ _ -`)
    const decimals = Number(r['decimals'])
    if (!/^\d+$/.test(r['decimals']!) || decimals > 36) {
      throw new WatchlistError(file, line, 'decimals', `'${r['decimals']}' must be an integer from 0 to 36`)
    }
    const priceAsset = r['price_asset']!
    if (!PRICE_ASSET.test(priceAsset)) {
      throw new WatchlistError(
        file,
        line,
        'price_asset',
        `'${priceAsset}' must be USD or an upper-case asset such as ETH`
      )
    }
    return {
      line,
      chain,
      address: addressOf(file, line, chain, r['address']!, true),
      symbol: symbol.toUpperCase(),
      decimals,
      priceAsset,
      source: sourceOf(file, line, r['source']!)
    }
  })
}

interface Placed {
  readonly chain: string
  readonly address: string
  readonly file: string
  readonly line: number
}

/** Rejects the second entry of one chain + address, naming where the first one is. */
function checkUnique(kind: string, entries: readonly Placed[]): void {
  const seen = new Map<string, Placed>()
  for (const e of entries) {
    const key = `${e.chain}:${e.address}`
    const first = seen.get(key)
    if (first !== undefined) {
      throw new WatchlistError(
        e.file,
        e.line,
        'address',
        `${kind} ${key} is listed twice (first in ${first.file} line ${first.line})`
      )
    }
    seen.set(key, e)
  }
}

/** Loads every watch-list file of `dir`; throws WatchlistError (bad entry) or an Error (unreadable dir). */
export function loadWatchlists(dir: string, now: number = Date.now()): Watchlist {
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.wallets.csv') || n.endsWith('.tokens.csv'))
    .sort()
  const wallets: Array<WatchedWallet & Placed> = []
  const tokens: Array<WatchedToken & Placed> = []
  const files: WatchlistFile[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    const content = fs.readFileSync(file, 'utf8')
    if (name.endsWith('.wallets.csv')) {
      const parsed = parseWallets(name, content)
      files.push({ file: name, kind: 'wallets', entries: parsed.length })
      for (const e of parsed) wallets.push({ ...e, file: name })
    } else {
      const parsed = parseTokens(name, content)
      files.push({ file: name, kind: 'tokens', entries: parsed.length })
      for (const e of parsed) tokens.push({ ...e, file: name })
    }
    if (wallets.length + tokens.length > MAX_ENTRIES) {
      throw new WatchlistError(name, 0, null, `more than ${MAX_ENTRIES} entries in ${dir}`)
    }
  }
  checkUnique('wallet', wallets)
  checkUnique('token', tokens)
  return Object.freeze({
    wallets: Object.freeze(
      wallets.map(({ chain, address, label, entity, owner, source }) => ({
        chain,
        address,
        label,
        entity,
        owner,
        source
      }))
    ),
    tokens: Object.freeze(
      tokens.map(({ chain, address, symbol, decimals, priceAsset, source }) => ({
        chain,
        address,
        symbol,
        decimals,
        priceAsset,
        source
      }))
    ),
    files: Object.freeze(files),
    loadedAt: now
  })
}
