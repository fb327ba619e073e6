/**
 * @module
 * `solana`: whale events of the watch list's Solana wallets from the operator's node (`SOLANA_RPC_URL`),
 * docs/sources.md "Chain sources". Every `SOLANA_POLL_MS`, per watched wallet: `getSignaturesForAddress`
 * (newest first, at most `SOLANA_SIGNATURES_LIMIT`, `until` the last signature seen), then `getTransaction`
 * (jsonParsed, maxSupportedTransactionVersion 0, commitment finalized) of each new one, oldest first. The
 * balance deltas (ingest/normalize/chain/solana-decode.ts) go through the same per-transaction collapse as
 * EVM chains; events are reported for watched wallets and the fee payer (pool vaults are neither).
 * Finalized transactions do not reorg: events are stored `confirmed` at once. The last signature per wallet
 * is the checkpoint (engine_state `chain:solana:<wallet>`), stored after the rows are acknowledged.
 * Plain JSON-RPC over fetch (undici): Solana has no viem client; requests are bounded by a timeout.
 */
import type { Logger } from '../../../engine/log.js'
import type { Store } from '../../../engine/store/store.js'
import { sleep } from '../../../engine/runtime/retry.js'
import type { WatchlistRegistry } from '../../../engine/watchlist/registry.js'
import { eventKey, writeChainEvents } from '../../../engine/whales/chain-event-store.js'
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
import { TapePlayer, TapeRecorder, tapeFile } from './rpc-tape.js'
import { flowBatch } from './flow-records.js'

/** one JSON-RPC request's time to answer, ms */
const REQUEST_TIMEOUT_MS = 10_000

export interface SolanaHealth {
  readonly wallets: number
  readonly signatures: number
  readonly transactions: number
  readonly failed_transactions: number
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
}

interface Signature {
  readonly signature: string
  readonly slot: number
  readonly err: unknown
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
  private counts = { signatures: 0, transactions: 0, failed_transactions: 0, rpc_calls: 0, rpc_errors: 0, unpriced: 0 }
  private nextId = 1

  constructor(private readonly opts: SolanaWhaleSourceOptions) {}

  private tape: TapePlayer | TapeRecorder | null = null

  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    const { replayDir, recordDir } = this.opts.settings
    if (replayDir !== undefined) {
      if (!(this.tape instanceof TapePlayer)) this.tape = new TapePlayer(tapeFile(replayDir, this.name))
      this.counts.rpc_calls += 1
      return this.tape.answer<T>(method, params)
    }
    const result = await this.node<T>(method, params)
    if (recordDir !== undefined) {
      if (!(this.tape instanceof TapeRecorder)) this.tape = new TapeRecorder(tapeFile(recordDir, this.name))
      this.tape.record(method, params, result)
    }
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
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
      })
      if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`)
      const body = (await res.json()) as { result?: T; error?: { code: number; message: string } }
      if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`)
      return body.result as T
    } catch (err) {
      this.counts.rpc_errors += 1
      this.connected = false
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
    for (const t of index.tokensOn('solana')) {
      const key = t.address === WSOL_MINT || t.address === 'native' ? NATIVE : t.address
      tokens.set(key, { symbol: t.symbol, decimals: t.decimals, priceAsset: t.priceAsset })
    }
    if (!tokens.has(NATIVE)) tokens.set(NATIVE, { symbol: 'SOL', decimals: 9, priceAsset: 'SOL' })
    return {
      token: (a) => tokens.get(a),
      wallet: (a) => index.wallet('solana', a),
      pricer,
      minUsd: this.opts.settings.minUsd
    }
  }

  /** New signatures of `wallet` after `until`, oldest first (one page of at most the limit). */
  private async newSignatures(wallet: string, until: string | null): Promise<Signature[]> {
    const opts: Record<string, unknown> = { limit: this.opts.settings.signaturesLimit, commitment: 'finalized' }
    if (until !== null) opts['until'] = until
    const sigs = await this.rpc<Signature[]>('getSignaturesForAddress', [wallet, opts])
    this.counts.signatures += sigs.length
    return [...sigs].reverse()
  }

  /** events whose whale_transfers row is not stored yet (idempotent by chain, tx_hash, log_index, address) */
  private async unstored(events: readonly ChainWhaleEvent[]): Promise<ChainWhaleEvent[]> {
    if (events.length === 0) return []
    const rows = await this.opts.store.query<{ tx_hash: string; log_index: number; address: string }>(
      `SELECT tx_hash, log_index, address FROM chain_whale_events FINAL
       WHERE chain = 'solana' AND tx_hash IN {hashes:Array(String)}`,
      { hashes: [...new Set(events.map((e) => e.tx_hash))] }
    )
    const stored = new Set(rows.map((r) => eventKey({ ...r, log_index: Number(r.log_index) })))
    return events.filter((e) => !stored.has(eventKey(e)))
  }

  /** `round`: transactions already fetched in this poll (a transaction of two watched wallets is read once) */
  private async eventsOf(
    sigs: readonly Signature[],
    round: Map<string, SolanaTransaction | null>
  ): Promise<ChainWhaleEvent[]> {
    const txs: SolanaTransaction[] = []
    for (const s of sigs) {
      let tx = round.get(s.signature)
      if (tx === undefined) {
        tx = await this.rpc<SolanaTransaction | null>('getTransaction', [
          s.signature,
          { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'finalized' }
        ])
        round.set(s.signature, tx)
        if (tx !== null) {
          this.counts.transactions += 1
          if (tx.meta?.err) this.counts.failed_transactions += 1
        }
      }
      if (tx !== null) txs.push(tx)
    }
    if (txs.length === 0) return []
    const pricer = new StorePricer(this.opts.store)
    const times = txs.map((t) => (t.blockTime ?? 0) * 1000)
    const assets = [...new Set(this.opts.watchlists.current.tokensOn('solana').map((t) => t.priceAsset)), 'SOL']
    await pricer.prepare(assets, Math.min(...times), Math.max(...times))
    const ctx = this.context(pricer)
    const events: ChainWhaleEvent[] = []
    for (const tx of txs) {
      const raw = decodeSolanaTx(tx)
      // the watched wallet and the fee payer: pool vaults and program accounts are counterparties
      for (const e of txEvents(raw, ctx)) if (e.address === raw.sender || ctx.wallet(e.address)) events.push(e)
      this.lastSlot = Math.max(this.lastSlot ?? 0, tx.slot)
      this.lastBlockTs = Math.max(this.lastBlockTs ?? 0, (tx.blockTime ?? 0) * 1000)
    }
    this.counts.unpriced += events.filter((e) => e.usd_value === null).length
    return events
  }

  async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const { store } = this.opts
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
        if (sigs.length === 0) continue
        // a transaction of two watched wallets is read for each; its rows are written once
        const events = await this.unstored(await this.eventsOf(sigs, round))
        await writeChainEvents(store, events, 'confirmed', Date.now())
        const { records, transfers, lastTs } = flowBatch(events, 'solana', this.opts.watchlists.current)
        if (records.length > 0) {
          yield* encodeRecords(records, false)
          yield { live: true, records }
          this.rows += transfers
          this.lastEventTs = Math.max(this.lastEventTs ?? 0, lastTs!)
        }
        const last = sigs[sigs.length - 1]!.signature
        const key = this.checkpointKey(w.address)
        yield {
          barrier: true,
          onDone: () =>
            store.command(
              'INSERT INTO engine_state (key, value, updated) VALUES ({key:String}, {value:String}, now64(3))',
              {
                key,
                value: last
              }
            )
        }
      }
      await sleep(this.opts.settings.pollMs, signal)
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
        rpc_calls: this.counts.rpc_calls,
        rpc_errors: this.counts.rpc_errors,
        last_slot: this.lastSlot,
        lag_s: this.lastBlockTs === null ? null : Math.max(0, Math.round((Date.now() - this.lastBlockTs) / 1000)),
        unpriced_events: this.counts.unpriced
      }
    }
  }
}
