/**
 * The evm:<chain> source's new-heads subscription (`<ENV>_WS_URL`, ingest/sources/chain/evm-whale-source.ts
 * `subscribe`) lives as long as one run of the source: a run that ends with an error (the supervisor starts the
 * next one) unsubscribes before it ends, so restarts never stack subscriptions on the socket (a subscription dropped
 * only when the process stops would add one per restart).
 *
 * Real parts: anvil (chain id 1) for the HTTP calls, behind a JSON-RPC proxy that makes eth_blockNumber fail
 * after a few answers (the run's error); a WebSocket JSON-RPC server on 127.0.0.1 (the `ws` package) that
 * answers eth_subscribe / eth_unsubscribe and counts the subscriptions open on its sockets; a migrated chDB
 * store; the source driven by runSource through a real IngestPipeline.
 */
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { silentLogger } from '../../engine/log.js'
import { WatchlistRegistry } from '../../engine/watchlist/registry.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { runSource } from '../../ingest/run-source.js'
import { chainSourcesConfig } from '../../ingest/sources/chain/chain-settings.js'
import { EvmWhaleSource } from '../../ingest/sources/chain/evm-whale-source.js'
import { until } from '../fixtures/evm/whales/harness.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { startRpcProxy, type RpcProxy } from '../helpers/evm/rpc-proxy.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()
const log = silentLogger()
const closers: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
})

/** a WebSocket JSON-RPC node that only takes subscriptions: `open` counts those not yet dropped */
async function subscriptionNode() {
  const state = { subscribes: 0, open: 0 }
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  server.on('connection', (socket: WebSocket) => {
    const mine = new Set<string>()
    socket.on('message', (raw) => {
      const r = JSON.parse(String(raw)) as { id: unknown; method: string; params?: unknown[] }
      let result: unknown = null
      if (r.method === 'eth_subscribe') {
        const id = `0x${(++state.subscribes).toString(16)}`
        mine.add(id)
        state.open++
        result = id
      } else if (r.method === 'eth_unsubscribe') {
        const id = String(r.params?.[0])
        result = mine.delete(id)
        if (result) state.open--
      } else if (r.method === 'eth_chainId') result = '0x1'
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: r.id, result }))
    })
    // a closed socket drops its subscriptions
    socket.on('close', () => {
      state.open -= mine.size
      mine.clear()
    })
  })
  await new Promise<void>((r) => server.once('listening', () => r()))
  closers.push(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, state }
}

describe('evm source new-heads subscription', () => {
  it('a run that ends with an error unsubscribes; the next run subscribes once again', async () => {
    const anvil: Anvil = await startAnvil({ chainId: 1 })
    closers.push(() => anvil.stop())
    const ws = await subscriptionNode()
    // eth_blockNumber answers 3 times per run, then fails: each run ends with an error while subscribed
    let answered = 0
    let failing = true
    const proxy: RpcProxy = await startRpcProxy(anvil.url, (r) => {
      if (r.method !== 'eth_blockNumber' || !failing) return undefined
      if (++answered % 4 !== 0) return undefined
      return { jsonrpc: '2.0', id: r.id, error: { code: -32000, message: 'node fell over (test)' } }
    })
    closers.push(() => proxy.close())
    const lists = path.join(env.dir, 'lists-empty')
    fs.mkdirSync(lists, { recursive: true })
    const vars = {
      ETHEREUM_RPC_URL: proxy.url,
      ETHEREUM_WS_URL: ws.url,
      ETHEREUM_POLL_MS: '50',
      ETHEREUM_CONFIRMATIONS: '1',
      WATCHLIST_DIR: lists
    }
    const clients = ChainClients.fromEnv(vars)
    closers.push(() => clients.close())
    const settings = chainSourcesConfig(vars)
    const source = new EvmWhaleSource({
      chain: 'ethereum',
      client: () => clients.get('ethereum')!,
      store: env.store,
      watchlists: new WatchlistRegistry(settings.watchlistDir),
      settings: settings.evm.ethereum,
      log
    })
    const pipeline = new IngestPipeline(
      env.store,
      { batchRows: 1_000, flushMs: 50, queueRows: 10_000 },
      log,
      new BatchJournal(path.join(env.dir, 'journal-ws'))
    )
    closers.push(() => pipeline.close(Date.now() + 5_000))
    // the stop signal of the process: never aborted while the runs fail, as under the supervisor
    const stop = new AbortController()
    for (let run = 1; run <= 3; run++) {
      await expect(runSource(source, pipeline, stop.signal, log)).rejects.toThrow()
      expect(ws.state.subscribes).toBe(run)
      // the run's subscription is gone (unsubscribed, its socket closed) before the next run starts
      await until(`run ${run}'s subscription dropped`, async () => ws.state.open === 0, 10_000)
    }
    // a run that is stopped unsubscribes too
    failing = false
    const running = runSource(source, pipeline, stop.signal, log)
    await until('the fourth subscription', async () => ws.state.subscribes === 4 && ws.state.open === 1, 10_000)
    stop.abort()
    await running
    await until('the stopped run unsubscribed', async () => ws.state.open === 0, 10_000)
  }, 120_000)
})
