/**
 * @module
 * The `items()` of a live venue source: starts the venue's transport in the background (sockets, pollers,
 * rediscovery pushing into the RawQueue) and pumps the queue to the pipeline until the caller's signal
 * aborts or the consumer stops. Stopping aborts the transport, waits for it to finish, then closes the
 * recorder, so every message the transport queued is pumped (and recorded) before the file is closed.
 */
import type { Logger } from '../../../engine/log.js'
import type { IngestItem } from '../../encoded-chunk.js'
import type { VenueNormalizer } from '../../normalize/normalizer.js'
import { Recorder } from '../../record/recorder.js'
import type { FeedCounters } from './feed-counters.js'
import { pumpFeed } from './feed-pump.js'
import type { RawQueue } from './raw-queue.js'

export interface VenueFeedOptions {
  readonly normalizer: VenueNormalizer
  readonly queue: RawQueue
  readonly counters: FeedCounters
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir?: string | undefined
  /** channels whose messages are repeated at the top of each recording file (market lists) */
  readonly sticky: (channel: string) => boolean
  /** the venue's transport; runs until its signal aborts, never throws */
  readonly transport: (signal: AbortSignal) => Promise<void>
  /** called once the transport has finished, before the recorder closes (the source's phase) */
  readonly onStopped: () => void
}

/** Runs until `signal` aborts and the queue is empty, or until the consumer stops iterating. */
export async function* runVenueFeed(opts: VenueFeedOptions, signal: AbortSignal): AsyncIterable<IngestItem> {
  const recorder = opts.recordDir ? new Recorder(opts.recordDir, opts.log) : undefined
  const stop = new AbortController()
  const onAbort = (): void => stop.abort()
  signal.addEventListener('abort', onAbort)
  const background = opts.transport(stop.signal)
  try {
    yield* pumpFeed(
      { normalizer: opts.normalizer, queue: opts.queue, counters: opts.counters, recorder, sticky: opts.sticky },
      stop.signal
    )
  } finally {
    stop.abort()
    signal.removeEventListener('abort', onAbort)
    await background
    opts.onStopped()
    await recorder?.close()
  }
}

/** A sticky test for REST paths: the channel's path (query string removed) is one of `paths`. */
export function stickyPaths(paths: readonly string[]): (channel: string) => boolean {
  return (channel) => paths.includes(channel.split('?', 1)[0]!)
}
