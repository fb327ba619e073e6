/**
 * @module
 * Where a live venue message spends its time between the venue socket and the push stream, for diagnosis
 * (`LIVE_PATH_PROBE=1`, used by the wire benchmark: docs/benchmarks.md "Wire"). Each stage records the age
 * of a batch's oldest message since its socket receive, so a stage's figure includes every stage before it:
 * - `dequeued`: a message taken from the venue's raw queue by the normalizer (per message);
 * - `normalized`: a drained batch's records handed on by the feed pump;
 * - `offered`: the batch offered to the live state (its store chunks were queued first);
 * - `applied`: the live state's books took it;
 * - `published`: the push stream's kinds published it (server/http/uws-fanout.ts writes it to the sockets
 *   when the current microtask run ends);
 * - `turn_end`: the event-loop turn that published it reached its check phase (setImmediate): where uWS'
 *   own pub/sub would write it (it drains once per loop iteration).
 * Ages use the receive stamp's clock (epoch ms, `Date.now()`): 1 ms resolution. The probe is one process-wide
 * instance, off by default (each mark is then one branch); the server turns it on from its config.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks'

export const PATH_STAGES = ['dequeued', 'normalized', 'offered', 'applied', 'published', 'turn_end'] as const
export type PathStage = (typeof PATH_STAGES)[number]

/** Percentiles of one stage, ms since the socket receive; `count`: batches (messages for `dequeued`). */
export interface StageFigures {
  readonly count: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

export class PathProbe {
  enabled = false
  /** microseconds (the histogram takes integers >= 1) */
  private readonly stages = new Map<PathStage, RecordableHistogram>(PATH_STAGES.map((s) => [s, createHistogram()]))

  /** Records that a batch whose oldest message was received at `recvTs` (epoch ms) reached `stage`. */
  mark(stage: PathStage, recvTs: number | undefined): void {
    if (!this.enabled || recvTs === undefined) return
    this.stages.get(stage)!.record(Math.max(1, (Date.now() - recvTs) * 1000))
  }

  /** receive time of the oldest batch marked `published` in this loop turn, epoch ms */
  private turnOldest: number | undefined

  /** Records `published` now and `turn_end` once this event-loop turn reaches its check phase. */
  markPublished(recvTs: number | undefined): void {
    if (!this.enabled || recvTs === undefined) return
    this.mark('published', recvTs)
    if (this.turnOldest !== undefined) {
      if (recvTs < this.turnOldest) this.turnOldest = recvTs
      return
    }
    this.turnOldest = recvTs
    setImmediate(() => {
      this.mark('turn_end', this.turnOldest)
      this.turnOldest = undefined
    })
  }

  figures(): Record<PathStage, StageFigures> {
    const ms = (us: number): number => Math.round(us) / 1000
    const out = {} as Record<PathStage, StageFigures>
    for (const [stage, h] of this.stages) {
      out[stage] = { count: h.count, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) }
    }
    return out
  }
}

/** The process's probe (the live path crosses ingest, engine and server; one instance sees all of it). */
export const livePath = new PathProbe()
