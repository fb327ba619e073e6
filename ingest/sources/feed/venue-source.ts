/**
 * @module
 * What every live venue source (Binance, Bybit, OKX, Deribit) has in common: the raw queue between its
 * sockets/REST and the normalizer, the feed counters, the phase, `items()` through `runVenueFeed` and
 * `status()` through `feedStatus`. A venue adds its transport (`runTransport`) and its part of the health
 * figures (`health`): markets followed, connections, gaps, REST counters.
 */
import type { Logger } from '../../../engine/log.js'
import type { IngestItem } from '../../encoded-chunk.js'
import type { Source, SourceStatus } from '../source.js'
import { FeedCounters } from './feed-counters.js'
import { feedStatus, type FeedStatusParts } from './feed-status.js'
import { RawQueue } from './raw-queue.js'
import { runVenueFeed, type VenueFeedOptions } from './venue-feed.js'

/** A venue's part of `/v1/health`: markets followed, connections, gaps, REST counters. */
export type VenueHealth = Pick<FeedStatusParts, 'markets' | 'connections' | 'gaps' | 'rest'>

export interface VenueSourceOptions {
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir?: string | undefined
  /** raw messages buffered before the normalizer; more are dropped and counted */
  readonly queueCapacity: number
  /** REST answers repeated at the top of each recording file, so every file replays on its own */
  readonly sticky: (channel: string) => boolean
}

export abstract class VenueSource implements Source {
  abstract readonly name: string
  readonly synthetic = false
  abstract readonly normalizer: VenueFeedOptions['normalizer']
  protected readonly queue: RawQueue
  protected readonly counters = new FeedCounters()
  /** starting, discovery, live, stopped */
  protected phase = 'starting'
  protected readonly log: Logger

  constructor(private readonly feed: VenueSourceOptions) {
    this.queue = new RawQueue(feed.queueCapacity)
    this.log = feed.log
  }

  /** The venue's part of `/v1/health`. */
  protected abstract health(): VenueHealth

  /** Discovery, sockets, pollers and rediscovery until `signal` aborts; messages go to `queue`. */
  protected abstract runTransport(signal: AbortSignal): Promise<void>

  status(): SourceStatus {
    return feedStatus({
      name: this.name,
      phase: this.phase,
      counters: this.counters,
      queue: this.queue,
      unsequenced: this.normalizer.unsequenced,
      ...this.health()
    })
  }

  items(signal: AbortSignal): AsyncIterable<IngestItem> {
    return runVenueFeed(
      {
        normalizer: this.normalizer,
        queue: this.queue,
        counters: this.counters,
        log: this.feed.log,
        recordDir: this.feed.recordDir,
        sticky: this.feed.sticky,
        transport: (s) => this.runTransport(s),
        onStopped: () => (this.phase = 'stopped')
      },
      signal
    )
  }
}
