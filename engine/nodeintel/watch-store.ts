/**
 * @module
 * The SQL of the token watch list and the verdict history (schemas/020_token_verdicts.sql), with bound
 * parameters. `token_watch` is a ReplacingMergeTree read with FINAL (the newest version of a registration
 * wins; `is_deleted = 1` removes it); `token_verdicts` is append-only, read newest first.
 */
import { getAddress, type Address } from 'viem'
import type { NodeIntelChain } from '../chain/chains.js'
import type { Store } from '../store/store.js'
import type { ChangedField, RecheckTrigger, VerdictPoint } from './verdict-change.js'
import type { Verdict } from './verdict.js'

export interface WatchRow {
  readonly key_id: string
  readonly chain: NodeIntelChain
  readonly token: Address
  /** epoch ms */
  readonly created_ms: number
}

/** One row of the verdict history, as the API answers it. */
export interface VerdictRow extends VerdictPoint {
  readonly chain: NodeIntelChain
  readonly token: Address
  /** what differs from the row before (empty on the first row of a token) */
  readonly changed: readonly ChangedField[]
  readonly trigger: RecheckTrigger
}

/** ISO 8601 → the `YYYY-MM-DD hh:mm:ss.sss` a DateTime64(3, 'UTC') column reads without best-effort parsing. */
const sqlTime = (iso: string): string => iso.replace('T', ' ').replace('Z', '')

function insertJson(store: Store, table: string, row: Record<string, unknown>, dedupToken: string): Promise<void> {
  return store.insert({
    table,
    columns: Object.keys(row),
    format: 'JSONEachRow',
    data: Buffer.from(JSON.stringify(row) + '\n'),
    dedupToken
  })
}

export async function loadWatches(store: Store): Promise<WatchRow[]> {
  const rows = await store.query<{ key_id: string; chain: string; token: string; created_ms: number }>(
    `SELECT key_id, chain, token, toUnixTimestamp64Milli(created_at) AS created_ms
     FROM token_watch FINAL WHERE is_deleted = 0 ORDER BY created_at`
  )
  return rows.map((r) => ({
    key_id: r.key_id,
    chain: r.chain as NodeIntelChain,
    token: getAddress(r.token),
    created_ms: Number(r.created_ms)
  }))
}

/** Writes a registration (`deleted`: its removal) with a version newer than any before. */
export function saveWatch(store: Store, w: WatchRow, deleted: boolean, version: number): Promise<void> {
  const row = {
    key_id: w.key_id,
    chain: w.chain,
    token: w.token,
    created_at: sqlTime(new Date(w.created_ms).toISOString()),
    version,
    is_deleted: deleted ? 1 : 0
  }
  return insertJson(store, 'token_watch', row, `token_watch:${w.key_id}:${w.chain}:${w.token}:${version}`)
}

export function insertVerdict(store: Store, r: VerdictRow): Promise<void> {
  const row = {
    chain: r.chain,
    token: r.token,
    checked_at: sqlTime(r.checked_at),
    block_number: r.block_number,
    verdict: r.verdict,
    is_honeypot: r.is_honeypot,
    method: r.method,
    buy_tax_pct: r.buy_tax_pct,
    sell_tax_pct: r.sell_tax_pct,
    transfer_tax_pct: r.transfer_tax_pct,
    reasons: r.reasons,
    changed: r.changed,
    trigger: r.trigger.kind,
    trigger_tx: r.trigger.tx_hash,
    trigger_block: r.trigger.block_number,
    trigger_detail: r.trigger.detail,
    trigger_from: r.trigger.from
  }
  return insertJson(
    store,
    'token_verdicts',
    row,
    `token_verdicts:${r.chain}:${r.token}:${r.checked_at}:${r.block_number}`
  )
}

interface VerdictSqlRow {
  chain: string
  token: string
  checked_ms: number
  block_number: number
  verdict: string
  is_honeypot: boolean | null
  method: string
  buy_tax_pct: number | null
  sell_tax_pct: number | null
  transfer_tax_pct: number | null
  reasons: string[]
  changed: string[]
  trigger: string
  trigger_tx: string | null
  trigger_block: number | null
  trigger_detail: string | null
  trigger_from: string | null
}

const COLUMNS = `chain, token, toUnixTimestamp64Milli(checked_at) AS checked_ms, block_number, verdict, is_honeypot,
  method, buy_tax_pct, sell_tax_pct, transfer_tax_pct, reasons, changed, trigger, trigger_tx, trigger_block,
  trigger_detail, trigger_from`

function rowOf(r: VerdictSqlRow): VerdictRow {
  return {
    chain: r.chain as NodeIntelChain,
    token: getAddress(r.token),
    verdict: r.verdict as Verdict,
    is_honeypot: r.is_honeypot === null ? null : Boolean(r.is_honeypot),
    method: r.method as VerdictRow['method'],
    buy_tax_pct: r.buy_tax_pct,
    sell_tax_pct: r.sell_tax_pct,
    transfer_tax_pct: r.transfer_tax_pct,
    block_number: Number(r.block_number),
    checked_at: new Date(Number(r.checked_ms)).toISOString(),
    reasons: r.reasons,
    changed: r.changed as ChangedField[],
    trigger: {
      kind: r.trigger as RecheckTrigger['kind'],
      tx_hash: r.trigger_tx as RecheckTrigger['tx_hash'],
      block_number: r.trigger_block === null ? null : Number(r.trigger_block),
      detail: r.trigger_detail,
      from: r.trigger_from === null ? null : getAddress(r.trigger_from)
    }
  }
}

/** A token's history, newest first: `limit` rows after skipping `offset`, and how many there are. */
export async function readHistory(
  store: Store,
  chain: NodeIntelChain,
  token: Address,
  limit: number,
  offset: number
): Promise<{ total: number; rows: VerdictRow[] }> {
  const params = { chain, token, limit, offset }
  const [count, rows] = await Promise.all([
    store.query<{ n: number }>(
      `SELECT count() AS n FROM token_verdicts WHERE chain = {chain:String} AND token = {token:String}`,
      params
    ),
    store.query<VerdictSqlRow>(
      `SELECT ${COLUMNS} FROM token_verdicts WHERE chain = {chain:String} AND token = {token:String}
       ORDER BY checked_at DESC, block_number DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      params
    )
  ])
  return { total: Number(count[0]?.n ?? 0), rows: rows.map(rowOf) }
}

/** The newest stored row of `token`, or null. */
export async function latestVerdict(store: Store, chain: NodeIntelChain, token: Address): Promise<VerdictRow | null> {
  return (await readHistory(store, chain, token, 1, 0)).rows[0] ?? null
}
