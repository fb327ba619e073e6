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
 * Plain JSON-RPC over fetch (undici): Solana has no viem client; requests are bounded by a timeout.
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
import { RecordedError, TapePlayer, TapeRecorder, tapeFile } from './rpc-tape.js'
import { flowBatch } from './flow-records.js'
import { chainEventRows } from './chain-event-rows.js'

/** one JSON-RPC request's time to answer, ms */
const REQUEST_TIMEOUT_MS = 10_000
/** signatures held per wallet and poll (~200 bytes each): the oldest ones after the checkpoint when more wait */
const MAX_NEW_SIGNATURES = 100_000
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
  /** one JSON-RPC request's time to answer, ms. @default REQUEST_TIMEOUT_MS (10 s) */
  readonly requestTimeoutMs?: number
}

/** the node answered the call with a JSON-RPC error object (it is reachable; the call's subject is at fault) */
class RpcAnswerError extends Error {}

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

interface Signature {
  readonly signature: string
  readonly slot: number
  readonly err: unknown
  /** epoch seconds, or null/absent when the node does not know it */
  readonly blockTime?: number | null
}

export class SolanaWhaleSource implements Source {
  readonly name = 'solana'
  readonly synthetic = false
  private connected = false
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
    rpc_calls: 0,
    rpc_errors: 0,
    unpriced: 0
  }
  /** the current run's stop signal (set by `items`) */
  private stopped: AbortSignal = new AbortController().signal
  /** signature -> polls its transaction was missing so far and when it was first (bounded: MAX_MISSING) */
  private readonly missing = new Map<string, { polls: number; since: number }>()
  /**
   * signatures counted as malformed (a transaction of two watched wallets is decoded for each, maybe in different
   * polls: counted once), the newest MAX_MISSING
   */
  private readonly malformedSeen = new Set<string>()
  private nextId = 1

  constructor(private readonly opts: SolanaWhaleSourceOptions) {}

  private tape: TapePlayer | TapeRecorder | null = null

  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    const { replayDir, recordDir } = this.opts.settings
    if (replayDir !== undefined) {
      if (!(this.tape instanceof TapePlayer)) this.tape = new TapePlayer(tapeFile(replayDir, this.name))
      this.counts.rpc_calls += 1
      try {
        return this.tape.answer<T>(method, params)
      } catch (err) {
        // a recorded error answer replays as one (a transaction the node could not give is waited for again)
        this.counts.rpc_errors += 1
        if (err instanceof RecordedError && err.answer) throw new RpcAnswerError(err.message)
        this.connected = false
        throw err
      }
    }
    if (recordDir !== undefined && !(this.tape instanceof TapeRecorder)) {
      this.tape = new TapeRecorder(tapeFile(recordDir, this.name))
    }
    const tape = this.tape instanceof TapeRecorder ? this.tape : null
    let result: T
    try {
      result = await this.node<T>(method, params)
    } catch (err) {
      // the node's failures are recorded too; a stop is not the node's
      if (!this.stopped.aborted) tape?.recordError(method, params, err, err instanceof RpcAnswerError)
      throw err
    }
    tape?.record(method, params, result)
    return result
  }

  private async node<T>(method: string, params: unknown[]): Promise<T> {
    const url = this.opts.settings.rpcUrl
    if (url === undefined) throw new Error('SOLANA_RPC_URL is not set')
    this.counts.rpc_calls += 1
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        // the run's stop ends a request in flight at once: a stop never waits for a slow node
        signal: AbortSignal.any([this.stopped, AbortSignal.timeout(this.opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS)])
      })
      if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`)
      const body = (await res.json()) as { result?: T; error?: { code: number; message: string } }
      if (body.error) throw new RpcAnswerError(`${method}: ${body.error.code} ${body.error.message}`)
      return body.result as T
    } catch (err) {
      if (this.stopped.aborted) throw err // the stop, not the node
      this.counts.rpc_errors += 1
      // an error answer means the node is there (a transaction it cannot give is not an outage)
      if (!(err instanceof RpcAnswerError)) this.connected = false
      throw err
    }
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
   * One page of `wallet`'s signatures, newest first. A page that is not a list of signatures is an RPC error
   * (thrown: the source retries with its backoff). Leaving a bad entry out instead would make a full page look
   * short and end the paging early, and the checkpoint would then move past the signatures never read.
   */
  private async signaturePage(wallet: string, until: string | null, before: string | null): Promise<Signature[]> {
    const opts: Record<string, unknown> = { limit: this.opts.settings.signaturesLimit, commitment: 'finalized' }
    if (until !== null) opts['until'] = until
    if (before !== null) opts['before'] = before
    const page = await this.rpc<unknown>('getSignaturesForAddress', [wallet, opts])
    const ok =
      Array.isArray(page) &&
      page.every((x) => typeof x === 'object' && x !== null && typeof (x as Signature).signature === 'string')
    if (!ok) {
      this.counts.rpc_errors += 1
      throw new Error('getSignaturesForAddress: the answer is not a list of signatures')
    }
    return page as Signature[]
  }

  /**
   * Signatures of `wallet` after `until`, oldest first. With a checkpoint, every page back to it (`before` the
   * oldest signature of the page before), keeping the oldest MAX_NEW_SIGNATURES when more wait (the next polls
   * read the rest: the checkpoint moves up to the newest one kept); without one, the newest page.
   */
  private async newSignatures(wallet: string, until: string | null): Promise<Signature[]> {
    const limit = this.opts.settings.signaturesLimit
    let newestFirst: Signature[] = []
    let before: string | null = null
    for (;;) {
      const page = await this.signaturePage(wallet, until, before)
      for (const sig of page) newestFirst.push(sig)
      // keep the oldest: the newest beyond the bound wait for a later poll
      if (newestFirst.length > MAX_NEW_SIGNATURES) newestFirst = newestFirst.slice(-MAX_NEW_SIGNATURES)
      if (until === null || page.length < limit || page.length === 0) break
      const oldest = page[page.length - 1]!.signature
      if (oldest === before) {
        // a node that ignores `before` answers the same page again: the signatures between it and the
        // checkpoint cannot be read, and moving on would skip them
        this.counts.rpc_errors += 1
        throw new Error('getSignaturesForAddress: the node ignores `before` (the same page twice)')
      }
      before = oldest
    }
    this.counts.signatures += newestFirst.length
    return newestFirst.reverse()
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
        tx = await this.rpc<SolanaTransaction | null>('getTransaction', [
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
    this.stopped = signal
    this.phase = 'connecting'
    await this.rpc<number>('getSlot', [{ commitment: 'finalized' }])
    this.connected = true
    // once per store and chain (chain-details.ts): a restart of the source after an error keeps what it remembered
    await loadChainDetails(store, 'solana', whaleWindowStart())
    this.phase = 'live'
    while (!signal.aborted) {
      const wallets = this.opts.watchlists.current.walletsOn('solana')
      const round = new Map<string, SolanaTransaction | null>()
      for (const w of wallets) {
        if (signal.aborted) break
        const since = await this.lastSignature(w.address)
        const sigs = await this.newSignatures(w.address, since)
        this.connected = true
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
      connected: this.connected,
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
        rpc_calls: this.counts.rpc_calls,
        rpc_errors: this.counts.rpc_errors,
        last_slot: this.lastSlot,
        lag_s: this.lastBlockTs === null ? null : Math.max(0, Math.round((Date.now() - this.lastBlockTs) / 1000)),
        unpriced_events: this.counts.unpriced
      }
    }
  }
}
