/**
 * @module
 * `solana`: whale events of the watch list's Solana wallets from the operator's node (`SOLANA_RPC_URL`),
 * docs/sources.md "Chain sources". Every `SOLANA_POLL_MS`, per watched wallet: `getSignaturesForAddress`
 * (newest first, pages of `SOLANA_SIGNATURES_LIMIT`, `until` the last signature seen, paged back with `before`
 * until the page reaches it: every signature since the checkpoint, the oldest MAX_NEW_SIGNATURES of them when
 * more wait, the rest in later polls; without a checkpoint, one page: the wallet is followed from now), then
 * `getTransaction` (jsonParsed, maxSupportedTransactionVersion 0, commitment finalized) of each new one, oldest
 * first, in chunks of the page size, each chunk written and checkpointed before the next. The balance deltas
 * (ingest/normalize/chain/solana-decode.ts) go through the same per-transaction collapse as EVM chains; events
 * are reported for watched wallets and the fee payer (pool vaults are neither). Finalized transactions do not
 * reorg: events are stored `confirmed` at once. The last signature per wallet is the checkpoint (engine_state
 * `chain:solana:<wallet>`), stored after the rows are acknowledged.
 *
 * Messy answers: a transaction the node answers null or an error for (not there yet, pruned, a version it
 * cannot give) stops its wallet's chunk there, to be asked again next poll; once missing at MISSING_TX_POLLS
 * polls over MISSING_TX_MS it is skipped and counted (`transactions_unavailable`). A signature page that is not
 * a list of signatures, or the same page again for `before`, is an RPC error (retried with backoff). A transaction that cannot become correct events (no fee, no balances, a token
 * balance without an amount, no block time anywhere) is skipped and counted (`malformed_transactions`); a
 * missing `meta.err` is a success. Detail rows (chain_whale_events) and flow rows go through the ingest
 * pipeline; the chunk's barrier stores the checkpoint once both are written. Flow rows are written for the
 * events whose whale_transfers row is not stored yet (idempotent by chain, tx_hash, log_index, address),
 * checked against whale_transfers itself, so a run that ended with one table written and not the other loses
 * neither.
 * The JSON-RPC client is solana-rpc.ts, the signature paging solana-signatures.ts.
 */
import type { Logger } from '../../../engine/log.js'
import type { Store } from '../../../engine/store/store.js'
import { sleep } from '../../../engine/runtime/backoff.js'
import type { WatchlistRegistry } from '../../../engine/watchlist/registry.js'
import { confirmedKeys, eventKey } from '../../../engine/whales/chain-event-store.js'
import { releaseSinkBytes } from '../../../engine/whales/sink-pool.js'
import { StorePricer } from '../../../engine/whales/event-prices.js'
import { loadChainDetails } from '../../../engine/whales/chain-details.js'
import { whaleWindowStart } from '../../../engine/live/whale-window.js'
import {
  txEvents,
  type TokenInfo,
  type TxEventContext,
  type ChainWhaleEvent
} from '../../../engine/whales/tx-events.js'
import { NATIVE } from '../../../engine/whales/tx-legs.js'
import type { IngestItem } from '../../encoded-chunk.js'
import { encodeRecords } from '../../encode-records.js'
import { decodeSolanaTx, WSOL_MINT, type SolanaTransaction } from '../../normalize/chain/solana-decode.js'
import type { Source, SourceStatus } from '../source.js'
import type { SolanaSettings } from './chain-settings.js'
import { RpcAnswerError, SolanaRpc } from './solana-rpc.js'
import { newSignatures, type Signature } from './solana-signatures.js'
import { flowBatch } from './flow-records.js'
import { chainEventRows } from './chain-event-rows.js'

/**
 * a transaction the node answers null for (or with an error) is asked again at later polls; it is skipped (and
 * counted) once it was missing at MISSING_TX_POLLS polls over at least MISSING_TX_MS: a load-balanced provider
 * whose backend lags answers null for a while, a pruned one for good
 */
const MISSING_TX_POLLS = 3
const MISSING_TX_MS = 5 * 60_000
/** transactions remembered as answered null (their polls so far), at most: the oldest go first */
const MAX_MISSING = 10_000

export interface SolanaHealth {
  readonly wallets: number
  readonly signatures: number
  readonly transactions: number
  readonly failed_transactions: number
  /** transactions skipped because the node answered null for MISSING_TX_POLLS polls */
  readonly transactions_unavailable: number
  /** transactions skipped because their answer could not become correct events */
  readonly malformed_transactions: number
  readonly rpc_calls: number
  readonly rpc_errors: number
  readonly last_slot: number | null
  readonly lag_s: number | null
  readonly unpriced_events: number
}

export interface SolanaWhaleSourceOptions {
  readonly settings: SolanaSettings
  readonly store: Store
  readonly watchlists: WatchlistRegistry
  readonly log: Logger
  /** epoch ms, for how long a transaction has been missing (tests move it on). @default Date.now */
  readonly now?: () => number
  /** one JSON-RPC request's time to answer, ms. @default REQUEST_TIMEOUT_MS (10 s, solana-rpc.ts) */
  readonly requestTimeoutMs?: number
}

/** the lowest and highest slot (the events' block_number) of `events`, not empty */
function slotRange(events: readonly ChainWhaleEvent[]): [number, number] {
  let from = Infinity
  let to = -Infinity
  for (const e of events) {
    from = Math.min(from, e.block_number)
    to = Math.max(to, e.block_number)
  }
  return [from, to]
}

export class SolanaWhaleSource implements Source {
  readonly name = 'solana'
  readonly synthetic = false
  /** the read API's details of the last 7 days loaded (once per process, engine/whales/chain-details.ts) */
  private phase = 'starting'
  private rows = 0
  private lastEventTs: number | null = null
  private lastSlot: number | null = null
  private lastBlockTs: number | null = null
  private counts = {
    signatures: 0,
    transactions: 0,
    failed_transactions: 0,
    transactions_unavailable: 0,
    malformed_transactions: 0,
    unpriced: 0
  }
  /** signature -> polls its transaction was missing so far and when it was first (bounded: MAX_MISSING) */
  private readonly missing = new Map<string, { polls: number; since: number }>()
  /**
   * signatures counted as malformed (a transaction of two watched wallets is decoded for each, maybe in different
   * polls: counted once), the newest MAX_MISSING
   */
  private readonly malformedSeen = new Set<string>()
  private readonly rpc: SolanaRpc

  constructor(private readonly opts: SolanaWhaleSourceOptions) {
    this.rpc = new SolanaRpc(opts.settings, opts.requestTimeoutMs)
  }

  private checkpointKey(wallet: string): string {
    return `chain:solana:${wallet}`
  }

  private async lastSignature(wallet: string): Promise<string | null> {
    const rows = await this.opts.store.query<{ value: string }>(
      'SELECT argMax(value, updated) AS value FROM engine_state WHERE key = {k:String} GROUP BY key',
      { k: this.checkpointKey(wallet) }
    )
    return rows[0]?.value ?? null
  }

  private context(pricer: StorePricer): TxEventContext {
    const index = this.opts.watchlists.current
    const tokens = new Map<string, TokenInfo>()
    // SOL and wrapped SOL are one asset, labelled SOL (tracked-tokens.ts says why): the `native` row prices it,
    // else the wrapped SOL row; the wrapped row's symbol never names the coin
    let nativePrice: string | undefined
    let wrappedPrice: string | undefined
    for (const t of index.tokensOn('solana')) {
      if (t.address === NATIVE) nativePrice = t.priceAsset
      else if (t.address === WSOL_MINT) wrappedPrice = t.priceAsset
      else tokens.set(t.address, { symbol: t.symbol, decimals: t.decimals, priceAsset: t.priceAsset })
    }
    tokens.set(NATIVE, { symbol: 'SOL', decimals: 9, priceAsset: nativePrice ?? wrappedPrice ?? 'SOL' })
    return {
      token: (a) => tokens.get(a),
      wallet: (a) => index.wallet('solana', a),
      pricer,
      minUsd: this.opts.settings.minUsd
    }
  }

  /**
   * The transaction of `sig`, fetched once per poll (`round`); null when the node answered null this poll and
   * it is to be asked again, 'skip' once it was answered null for MISSING_TX_POLLS polls (counted).
   */
  private async transactionOf(
    sig: Signature,
    round: Map<string, SolanaTransaction | null>
  ): Promise<SolanaTransaction | null | 'skip'> {
    let tx = round.get(sig.signature)
    if (tx === undefined) {
      try {
        tx = await this.rpc.call<SolanaTransaction | null>('getTransaction', [
          sig.signature,
          { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'finalized' }
        ])
      } catch (err) {
        // an error answer about this transaction (-32015 an unsupported version, pruned history, ...) is treated
        // as a missing one; a stop or an unreachable node ends the run as before
        if (!(err instanceof RpcAnswerError)) throw err
        tx = null
      }
      tx = typeof tx === 'object' && tx !== null ? tx : null
      round.set(sig.signature, tx)
      if (tx !== null) {
        this.counts.transactions += 1
        this.missing.delete(sig.signature)
        if (tx.meta?.err != null) this.counts.failed_transactions += 1
      } else {
        const now = (this.opts.now ?? Date.now)()
        const seen = this.missing.get(sig.signature) ?? { polls: 0, since: now }
        this.missing.delete(sig.signature) // re-inserted last: the map drops its oldest entries first
        if (seen.polls + 1 >= MISSING_TX_POLLS && now - seen.since >= MISSING_TX_MS) {
          this.counts.transactions_unavailable += 1
          return 'skip'
        }
        this.missing.set(sig.signature, { polls: seen.polls + 1, since: seen.since })
        if (this.missing.size > MAX_MISSING) this.missing.delete(this.missing.keys().next().value!)
      }
    }
    if (tx === null && !this.missing.has(sig.signature)) return 'skip' // skipped earlier in this poll
    return tx
  }

  /**
   * The events of `sigs`' transactions, oldest first, and how many of `sigs` they cover: all of them, or those
   * before the first transaction the node answered null for (asked again next poll). `round`: transactions
   * already fetched in this poll (a transaction of two watched wallets is read once).
   */
  private async eventsOf(
    sigs: readonly Signature[],
    round: Map<string, SolanaTransaction | null>
  ): Promise<{ events: ChainWhaleEvent[]; covered: number }> {
    // each transaction as decoded, with its signature (what `malformed` counts once)
    const txs: Array<{ readonly signature: string; readonly tx: SolanaTransaction }> = []
    let covered = 0
    for (const s of sigs) {
      const tx = await this.transactionOf(s, round)
      if (tx === null) break // not there yet: this signature and the ones after it wait for the next poll
      covered++
      if (tx === 'skip') continue
      // the signature list's block time stands in for a transaction answer without one
      const blockTime = typeof tx.blockTime === 'number' ? tx.blockTime : (s.blockTime ?? null)
      if (blockTime === null) {
        this.malformed(s.signature)
        continue
      }
      txs.push({ signature: s.signature, tx: blockTime === tx.blockTime ? tx : { ...tx, blockTime } })
    }
    const decoded: ReturnType<typeof decodeSolanaTx>[] = []
    for (const { signature, tx } of txs) {
      try {
        decoded.push(decodeSolanaTx(tx))
      } catch {
        this.malformed(signature) // no fee, no balances, a token balance without an amount, ...
      }
    }
    if (decoded.length === 0) return { events: [], covered }
    const pricer = new StorePricer(this.opts.store)
    const times = decoded.map((t) => t.ts)
    const assets = [...new Set(this.opts.watchlists.current.tokensOn('solana').map((t) => t.priceAsset)), 'SOL']
    await pricer.prepare(assets, Math.min(...times), Math.max(...times))
    const ctx = this.context(pricer)
    const events: ChainWhaleEvent[] = []
    for (const raw of decoded) {
      // the watched wallet and the fee payer: pool vaults and program accounts are counterparties
      for (const e of txEvents(raw, ctx)) if (e.address === raw.sender || ctx.wallet(e.address)) events.push(e)
      this.lastSlot = Math.max(this.lastSlot ?? 0, raw.blockNumber)
      this.lastBlockTs = Math.max(this.lastBlockTs ?? 0, raw.ts)
    }
    this.counts.unpriced += events.filter((e) => e.usd_value === null).length
    return { events, covered }
  }

  async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const { store } = this.opts
    this.rpc.run(signal)
    this.phase = 'connecting'
    await this.rpc.call<number>('getSlot', [{ commitment: 'finalized' }])
    this.rpc.connected = true
    // once per store and chain (chain-details.ts): a restart of the source after an error keeps what it remembered
    await loadChainDetails(store, 'solana', whaleWindowStart())
    this.phase = 'live'
    while (!signal.aborted) {
      const wallets = this.opts.watchlists.current.walletsOn('solana')
      const round = new Map<string, SolanaTransaction | null>()
      for (const w of wallets) {
        if (signal.aborted) break
        const since = await this.lastSignature(w.address)
        const sigs = await newSignatures(this.rpc, this.opts.settings.signaturesLimit, w.address, since)
        this.counts.signatures += sigs.length
        this.rpc.connected = true
        const chunkSize = this.opts.settings.signaturesLimit
        for (let at = 0; at < sigs.length && !signal.aborted; at += chunkSize) {
          const chunk = sigs.slice(at, at + chunkSize)
          const { events, covered } = await this.eventsOf(chunk, round)
          if (covered === 0) break // the oldest new transaction is not there yet: next poll
          // rewritten rows of a transaction of two watched wallets replace themselves (ReplacingMergeTree)
          const detail = chainEventRows(events, 'confirmed', Date.now())
          if (detail !== null) yield detail.chunk
          // whale_transfers rows already stored (a run that ended after a chunk's flow rows were written and
          // before its checkpoint), by slot; the earlier chunks' rows are written (their barriers)
          const stored = events.length === 0 ? null : await confirmedKeys(store, 'solana', ...slotRange(events))
          const fresh = stored === null ? events : events.filter((e) => !stored.has(eventKey(e)))
          const { records, transfers, lastTs } = flowBatch(fresh, 'solana', this.opts.watchlists.current)
          if (records.length > 0) {
            yield* encodeRecords(records, false)
            yield { live: true, records }
            this.rows += transfers
            this.lastEventTs = Math.max(this.lastEventTs ?? 0, lastTs!)
          }
          // the barrier writes the detail and flow rows before the checkpoint moves past their signatures
          yield this.checkpoint(w.address, chunk[covered - 1]!.signature)
          if (detail !== null) releaseSinkBytes(detail.bytes)
          if (covered < chunk.length) break // a transaction not there yet: the rest waits for the next poll
        }
      }
      await sleep(this.opts.settings.pollMs, signal)
    }
  }

  /** counts the transaction of `signature` as malformed, once */
  private malformed(signature: string): void {
    if (this.malformedSeen.has(signature)) return
    this.malformedSeen.add(signature)
    if (this.malformedSeen.size > MAX_MISSING) this.malformedSeen.delete(this.malformedSeen.values().next().value!)
    this.counts.malformed_transactions += 1
  }

  /** a barrier whose onDone stores `signature` as `wallet`'s checkpoint (after the rows before it are written) */
  private checkpoint(wallet: string, signature: string): IngestItem {
    const key = this.checkpointKey(wallet)
    return {
      barrier: true,
      onDone: () =>
        this.opts.store.command(
          'INSERT INTO engine_state (key, value, updated) VALUES ({key:String}, {value:String}, now64(3))',
          { key, value: signature }
        )
    }
  }

  status(): SourceStatus & { readonly chain: SolanaHealth } {
    return {
      name: this.name,
      synthetic: false,
      connected: this.rpc.connected,
      last_event_ts: this.lastEventTs,
      rows: this.rows,
      phase: this.phase,
      chain: {
        wallets: this.opts.watchlists.current.walletsOn('solana').length,
        signatures: this.counts.signatures,
        transactions: this.counts.transactions,
        failed_transactions: this.counts.failed_transactions,
        transactions_unavailable: this.counts.transactions_unavailable,
        malformed_transactions: this.counts.malformed_transactions,
        rpc_calls: this.rpc.calls,
        rpc_errors: this.rpc.errors,
        last_slot: this.lastSlot,
        lag_s: this.lastBlockTs === null ? null : Math.max(0, Math.round((Date.now() - this.lastBlockTs) / 1000)),
        unpriced_events: this.counts.unpriced
      }
    }
  }
}
