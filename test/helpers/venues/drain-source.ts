import type { NormalizedRecord } from '../../../engine/records/types.js'
import { isBarrier, isLiveRecords, type EncodedChunk } from '../../../ingest/encoded-chunk.js'
import type { Source } from '../../../ingest/sources/source.js'

/** Runs a source without a pipeline, keeping what it yields: live records and encoded chunks. */
export function drainSource(source: Source): {
  records: NormalizedRecord[]
  chunks: EncodedChunk[]
  stop: () => Promise<void>
  done: Promise<void>
} {
  const abort = new AbortController()
  const records: NormalizedRecord[] = []
  const chunks: EncodedChunk[] = []
  const done = (async () => {
    for await (const item of source.items(abort.signal)) {
      if (isLiveRecords(item)) records.push(...item.records)
      else if (!isBarrier(item)) chunks.push(item)
    }
  })()
  return {
    records,
    chunks,
    done,
    stop: async () => {
      abort.abort()
      await done
    }
  }
}

export const tradeIds = (records: readonly NormalizedRecord[], symbol: string): string[] =>
  records.filter((r) => r.kind === 'trade' && r.symbol === symbol).map((r) => (r as { trade_id: string }).trade_id)
