/**
 * @module
 * Drives one source into the pipeline until the source ends. Sources end by themselves after the signal
 * aborts, once what they started is handed over whole. Backpressure: the next item is pulled only after
 * the pipeline accepted the previous one. An error ends the run with that error: the supervisor
 * (engine/runtime/supervisor.ts) counts it and starts the source again after a backoff.
 */
import type { Logger } from '../engine/log.js'
import type { IngestPipeline } from './pipeline.js'
import type { Source } from './sources/source.js'

export async function runSource(
  source: Source,
  pipeline: IngestPipeline,
  signal: AbortSignal,
  log: Logger
): Promise<void> {
  const lane = pipeline.lane()
  try {
    for await (const item of source.items(signal)) {
      await lane.push(item)
    }
  } catch (err) {
    if (signal.aborted) return
    log.error({ source: source.name, err: (err as Error).message }, 'source stopped with an error; restarting')
    throw err
  }
}
