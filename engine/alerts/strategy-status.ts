/**
 * @module
 * Sequence checks of inbound alerts, per API key, strategy and symbol (docs/alerts.md, "Sequence checks"):
 * alerts missing (a numeric `seq` that skips values), late (the alert's moment, from `seq` as a date or
 * `time` plus one bar, more than one bar of its timeframe before it arrived, at least LATE_FLOOR_MS) and out
 * of order (a `seq` not above the last one), and silence (no alert for the key's `silence_bars` bars of the
 * strategy's timeframe). Held in memory and written to `alert_strategies` (one row per strategy and symbol,
 * the newest version wins) by `flush`, which the alerts module runs every FLUSH_MS and at stop; loaded at
 * start, so counts survive restarts (at most the last FLUSH_MS of changes are lost on a crash).
 */
import type { Store } from '../store/store.js'
import { barMs } from './alert-timeframe.js'
import type { SeqValue } from './alert-sequence.js'

/** Least lateness counted, ms: clocks of a sender and this server may differ by a few seconds. */
export const LATE_FLOOR_MS = 5_000
/** Strategy-and-symbol pairs tracked per key; alerts of further pairs are answered but not tracked (`untracked`). */
export const STRATEGIES_PER_KEY = 1_000
/** How often changed statuses are written, ms. */
export const FLUSH_MS = 1_000
/** `strategy` of alerts that send none. */
export const NO_STRATEGY = ''

export interface StrategyStatus {
  readonly keyId: string
  /** as sent; '' for alerts without one */
  readonly strategy: string
  /** the base the symbol resolved to */
  readonly symbol: string
  /** the last timeframe sent, or null */
  timeframe: string | null
  received: number
  missing: number
  late: number
  outOfOrder: number
  /** the newest sequence value seen, and its kind */
  lastSeq: SeqValue | null
  /** epoch ms of the last alert */
  lastReceivedAt: number
  /** epoch ms silence was declared; null while alerts arrive */
  silentSince: number | null
  /** silences declared */
  silences: number
  /** row version, microseconds: the newest wins in the table */
  version: number
}

/** What one alert showed. */
export interface SequenceVerdict {
  /** alerts skipped between the last `seq` and this one */
  readonly missing: number
  readonly late: boolean
  readonly outOfOrder: boolean
}

interface Row {
  key_id: string
  strategy: string
  symbol: string
  timeframe: string
  received: number
  missing: number
  late: number
  out_of_order: number
  last_seq_kind: string
  last_seq: number
  last_received_ms: number
  silent_since_ms: number
  silences: number
  version: number
}

export interface AlertObservation {
  readonly keyId: string
  readonly strategy: string | null
  readonly symbol: string
  readonly timeframe: string | null
  readonly seq: SeqValue | null
  readonly barTime: number | null
}

export class StrategyStatuses {
  private readonly byKey = new Map<string, Map<string, StrategyStatus>>()
  private readonly dirty = new Set<StrategyStatus>()
  private lastVersion = 0
  /** alerts of pairs past STRATEGIES_PER_KEY, answered but not tracked */
  untracked = 0

  constructor(private readonly store: Store) {}

  async load(): Promise<void> {
    const rows = await this.store.query<Row>('SELECT * FROM alert_strategies FINAL')
    for (const r of rows) {
      const s: StrategyStatus = {
        keyId: r.key_id,
        strategy: r.strategy,
        symbol: r.symbol,
        timeframe: r.timeframe === '' ? null : r.timeframe,
        received: Number(r.received),
        missing: Number(r.missing),
        late: Number(r.late),
        outOfOrder: Number(r.out_of_order),
        lastSeq:
          r.last_seq_kind === 'number' || r.last_seq_kind === 'time'
            ? { kind: r.last_seq_kind, value: Number(r.last_seq) }
            : null,
        lastReceivedAt: Number(r.last_received_ms),
        silentSince: Number(r.silent_since_ms) === 0 ? null : Number(r.silent_since_ms),
        silences: Number(r.silences),
        version: Number(r.version)
      }
      this.lastVersion = Math.max(this.lastVersion, s.version)
      this.of(s.keyId).set(pairKey(s.strategy, s.symbol), s)
    }
  }

  /** The statuses of a key, by strategy then symbol. */
  list(keyId: string): StrategyStatus[] {
    return [...(this.byKey.get(keyId)?.values() ?? [])].sort(
      (a, b) => a.strategy.localeCompare(b.strategy) || a.symbol.localeCompare(b.symbol)
    )
  }

  /** Every tracked status (the silence check walks them). */
  *all(): Iterable<StrategyStatus> {
    for (const m of this.byKey.values()) yield* m.values()
  }

  /** Judges one accepted alert against its strategy's last one and records it. */
  observe(a: AlertObservation, now: number): SequenceVerdict {
    const pairs = this.of(a.keyId)
    const strategy = a.strategy ?? NO_STRATEGY
    const k = pairKey(strategy, a.symbol)
    let s = pairs.get(k)
    if (s === undefined) {
      if (pairs.size >= STRATEGIES_PER_KEY) {
        this.untracked++
        return { missing: 0, late: false, outOfOrder: false }
      }
      s = {
        keyId: a.keyId,
        strategy,
        symbol: a.symbol,
        timeframe: null,
        received: 0,
        missing: 0,
        late: 0,
        outOfOrder: 0,
        lastSeq: null,
        lastReceivedAt: 0,
        silentSince: null,
        silences: 0,
        version: 0
      }
      pairs.set(k, s)
    }
    const verdict = judge(s.lastSeq, a, now)
    s.received++
    s.missing += verdict.missing
    if (verdict.late) s.late++
    if (verdict.outOfOrder) s.outOfOrder++
    else if (a.seq !== null) s.lastSeq = a.seq
    if (a.timeframe !== null) s.timeframe = a.timeframe
    s.lastReceivedAt = now
    s.silentSince = null
    this.touch(s, now)
    return verdict
  }

  /**
   * The statuses that went silent at `now`: their last alert is more than `bars(keyId)` bars of their
   * timeframe old (0: the key checks no silence). Each silence is reported once; the next alert re-arms it.
   */
  silenced(now: number, bars: (keyId: string) => number): StrategyStatus[] {
    const out: StrategyStatus[] = []
    for (const s of this.all()) {
      if (s.silentSince !== null) continue
      const n = bars(s.keyId)
      const bar = barMs(s.timeframe)
      if (n <= 0 || bar === null || now - s.lastReceivedAt <= n * bar) continue
      s.silentSince = now
      s.silences++
      this.touch(s, now)
      out.push(s)
    }
    return out
  }

  /** Writes every status changed since the last flush, in one insert. */
  async flush(): Promise<void> {
    if (this.dirty.size === 0) return
    const batch = [...this.dirty]
    this.dirty.clear()
    const rows = batch.map((s) => JSON.stringify(rowOf(s))).join('\n') + '\n'
    try {
      await this.store.insert({
        table: 'alert_strategies',
        columns: Object.keys(rowOf(batch[0]!)),
        format: 'JSONEachRow',
        data: Buffer.from(rows),
        dedupToken: `alert-strategies:${batch.map((s) => s.version).join(',')}`
      })
    } catch (err) {
      // written on the next flush (a newer change of a status carries all of it)
      for (const s of batch) this.dirty.add(s)
      throw err
    }
  }

  private touch(s: StrategyStatus, now: number): void {
    // microseconds, strictly increasing: two changes in one millisecond keep their order
    s.version = Math.max(now * 1000, this.lastVersion + 1)
    this.lastVersion = s.version
    this.dirty.add(s)
  }

  private of(keyId: string): Map<string, StrategyStatus> {
    let m = this.byKey.get(keyId)
    if (m === undefined) this.byKey.set(keyId, (m = new Map()))
    return m
  }
}

const pairKey = (strategy: string, symbol: string): string => JSON.stringify([strategy, symbol])

/** The verdict of one alert given the strategy's last sequence value. */
function judge(last: SeqValue | null, a: AlertObservation, now: number): SequenceVerdict {
  const bar = barMs(a.timeframe)
  let missing = 0
  let outOfOrder = false
  if (a.seq !== null && last !== null && last.kind === a.seq.kind) {
    if (a.seq.value <= last.value) outOfOrder = true
    else if (a.seq.kind === 'number' && Number.isInteger(a.seq.value) && Number.isInteger(last.value)) {
      missing = a.seq.value - last.value - 1
    }
  }
  // the moment the alert fired: its {{timenow}}, or the close of its bar
  const moment = a.seq?.kind === 'time' ? a.seq.value : a.barTime !== null && bar !== null ? a.barTime + bar : a.barTime
  const late = moment !== null && now - moment > Math.max(bar ?? 0, LATE_FLOOR_MS)
  return { missing, late, outOfOrder }
}

function rowOf(s: StrategyStatus): Row {
  return {
    key_id: s.keyId,
    strategy: s.strategy,
    symbol: s.symbol,
    timeframe: s.timeframe ?? '',
    received: s.received,
    missing: s.missing,
    late: s.late,
    out_of_order: s.outOfOrder,
    last_seq_kind: s.lastSeq?.kind ?? '',
    last_seq: s.lastSeq?.value ?? 0,
    last_received_ms: s.lastReceivedAt,
    silent_since_ms: s.silentSince ?? 0,
    silences: s.silences,
    version: s.version
  }
}
