/**
 * The stale-feed case the subscribe-style venue tests share (Binance, Bybit, OKX): the local venue server
 * goes silent on every connection, and the source must find each one stale, close it and open a new one
 * that subscribes again. `connected` alone would stay true if a stale socket were counted but never closed,
 * so the silent connections must really be gone and as many new ones accepted.
 */
import type { Source } from '../../../ingest/sources/source.js'
import { until } from '../until.js'
import type { SubscribingClient, SubscribingTestServer } from './venue-test-server.js'

/** Bound of each wait, ms: stale detection in these tests is 2 s. */
const WAIT_MS = 8_000

export async function silenceUntilReopened(
  server: SubscribingTestServer<SubscribingClient> & { readonly connections: number },
  source: Pick<Source, 'status'>,
  keys: readonly string[],
  opts: {
    /**
     * Wait for the client to close the silent connections before the server resumes: for a venue server
     * with its own idle cut-off, which would otherwise close them and hide a client that never does.
     */
    readonly closedWhilePaused?: boolean
  } = {}
): Promise<void> {
  const s0 = source.status()
  const n = s0.connections!
  const accepted = server.connections
  const silent = new Set(server.clients)
  const gone = (): boolean => [...silent].every((c) => !server.clients.has(c))
  server.pauseAll()
  await until('stale detected', () => source.status().stale! > s0.stale!, WAIT_MS)
  // every connection goes silent, so every one must be found stale (not only the first)
  await until('every connection stale', () => source.status().stale! >= s0.stale! + n, WAIT_MS)
  if (opts.closedWhilePaused) await until('silent connections closed', gone, WAIT_MS)
  server.resumeAll()
  await until('connected again', () => source.status().connected, WAIT_MS)
  await until(
    'stale connections reopened',
    () => server.connections - accepted >= n && source.status().reconnects! - s0.reconnects! >= n && gone(),
    WAIT_MS
  )
  await server.waitSubscribed(keys)
}
