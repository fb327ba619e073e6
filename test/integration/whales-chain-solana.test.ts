/**
 * The solana source against a local JSON-RPC server replaying recorded answers (test/fixtures/solana): a SOL
 * transfer from a watched whale to a watched exchange (both sides), a Jupiter-style two-hop USDC → SOL route
 * that is one swap event of the whale (pool vaults get none), a failed transaction that moves nothing;
 * prices from the service's SOL trades; a restart that reads nothing twice.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tmpDir } from '../helpers/tmp-dir.js'
import type { Running } from '../../server/start.js'
import { seedPrice, sourceHealth, startOn, until } from '../fixtures/evm/whales/harness.js'
import { solanaReplayServer, type SolanaReplayServer } from '../fixtures/solana/replay-server.js'

const FIXTURE = path.resolve('test/fixtures/solana/wallet-history.json')
const { wallets } = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { wallets: { whale: string; exchange: string } }
const dirs = tmpDir()
let node: SolanaReplayServer
let server: { running: Running; base: string } | null = null
let env: Record<string, string>
const T = Math.floor(Date.now() / 1000) - 7_200

async function rows(sql: string): Promise<any[]> {
  return server!.running.ctx.store.query(sql)
}

beforeAll(async () => {
  node = await solanaReplayServer(FIXTURE, { T1: T, T2: T + 60, T3: T + 120 })
  const lists = path.join(dirs.dir, 'lists')
  fs.mkdirSync(lists)
  const src = 'https://example.test/solana'
  fs.writeFileSync(
    path.join(lists, 'sol.wallets.csv'),
    `chain,address,label,entity,owner,source\nsolana,${wallets.whale},Sol whale,whale,Sol whale,${src}\nsolana,${wallets.exchange},SolEx,exchange,SolEx,${src}\n`
  )
  fs.writeFileSync(
    path.join(lists, 'sol.tokens.csv'),
    `chain,address,symbol,decimals,price_asset,source\nsolana,native,SOL,9,SOL,${src}\nsolana,EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v,USDC,6,USD,${src}\n`
  )
  const data = path.join(dirs.dir, 'data')
  const seeding = await startOn(data, { SOURCES: 'none', WATCHLIST_DIR: lists })
  await seedPrice(seeding.base, 'SOL', 150)
  await seeding.running.stop()
  env = { SOURCES: 'solana', SOLANA_RPC_URL: node.url, SOLANA_POLL_MS: '50', WATCHLIST_DIR: lists }
  server = await startOn(data, env)
  await until('both wallets read', async () => (node.calls.get('getSignaturesForAddress') ?? 0) >= 4)
}, 60_000)

afterAll(async () => {
  await server?.running.stop()
  await node?.close()
  dirs.cleanup()
})

describe('solana source (replayed JSON-RPC)', () => {
  it('a SOL transfer to an exchange: both sides, net of the fee, priced from the SOL trades', async () => {
    const r = await rows(
      `SELECT address, event_type, token, amount, usd_value, price_source, internal FROM chain_whale_events FINAL
       WHERE chain = 'solana' AND event_type != 'swap' ORDER BY event_type`
    )
    expect(r).toEqual([
      {
        address: wallets.exchange,
        event_type: 'transfer_in',
        token: 'SOL',
        amount: 20_000,
        usd_value: 3_000_000,
        price_source: 'candles_1m:binance',
        internal: false
      },
      {
        address: wallets.whale,
        event_type: 'transfer_out',
        token: 'SOL',
        amount: 20_000,
        usd_value: 3_000_000,
        price_source: 'candles_1m:binance',
        internal: false
      }
    ])
  })

  it('a two-hop USDC → SOL route is one swap of the whale; pool vaults get no event; a failed tx moves nothing', async () => {
    const swaps = await rows(
      `SELECT address, token, amount, token_in, amount_in, usd_value, hops, circular FROM chain_whale_events FINAL
       WHERE chain = 'solana' AND event_type = 'swap'`
    )
    expect(swaps).toEqual([
      {
        address: wallets.whale,
        token: 'SOL',
        amount: 13_300,
        token_in: 'USDC',
        amount_in: 2_000_000,
        usd_value: 2_000_000,
        hops: 2,
        circular: false
      }
    ])
    const all = await rows(`SELECT count() AS n FROM chain_whale_events FINAL WHERE chain = 'solana'`)
    expect(Number(all[0].n)).toBe(3)
  })

  it('health has the solana entry; a restart reads no transaction twice', async () => {
    const h = await sourceHealth(server!.base, 'solana')
    expect(h).toMatchObject({ connected: true, rows: 3 })
    expect(h.chain).toMatchObject({ wallets: 2, failed_transactions: 1 })
    const before = await rows(`SELECT count() AS n FROM whale_transfers WHERE chain = 'solana'`)
    expect(Number(before[0].n)).toBe(3)
    await server!.running.stop()
    const gets = node.calls.get('getTransaction') ?? 0
    server = await startOn(path.join(dirs.dir, 'data'), env)
    const sigCalls = node.calls.get('getSignaturesForAddress') ?? 0
    await until('polled again', async () => (node.calls.get('getSignaturesForAddress') ?? 0) >= sigCalls + 2)
    expect(node.calls.get('getTransaction') ?? 0).toBe(gets)
    const after = await rows(`SELECT count() AS n FROM whale_transfers WHERE chain = 'solana'`)
    expect(Number(after[0].n)).toBe(3)
  })
})
