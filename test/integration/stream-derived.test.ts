/**
 * The push stream's derived channels over real WebSockets: funding, screener, options, whales and confirm,
 * each a snapshot then its updates.
 */
import { describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody } from '../helpers/server.js'
import { updatesOf } from '../helpers/stream-client.js'
import { srv, traderKey, connect, subscribe, useStreamServer } from '../helpers/stream-server.js'

useStreamServer()

describe('derived channels', () => {
  it('funding: snapshot per venue, then each funding record with its annualized rate', async () => {
    const c = await connect()
    await subscribe(c, ['funding:BTC'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'funding:BTC')
    expect(snap.data.map((r: { exchange: string }) => r.exchange)).toEqual(['binance', 'okx'])
    const ts = Date.now()
    await ingestRecords(srv.base, 'funding', [
      { ts, exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC', funding_rate: 0.0002, interval_hours: 4 }
    ])
    const u = await c.next(updatesOf('funding:BTC'))
    expect(u.seq).toBe(snap.seq + 1)
    expect(u.data).toEqual([
      {
        ts,
        exchange: 'okx',
        symbol: 'BTC-USDT-SWAP',
        base: 'BTC',
        funding_rate: 0.0002,
        interval_hours: 4,
        funding_rate_annualized: (0.0002 * 8760) / 4,
        next_funding_ts: null,
        mark_price: null
      }
    ])
    c.close()
  })

  it('screener: every row in the snapshot, then the changed rows of each tick', async () => {
    const c = await connect()
    await subscribe(c, ['screener'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'screener')
    expect(snap.data.rows.length).toBeGreaterThanOrEqual(3)
    await ingestRecords(srv.base, 'open_interest', [
      { ts: Date.now(), exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC', oi_base: 10, oi_usd: 500_000 }
    ])
    const u = await c.next(
      (f) =>
        updatesOf('screener')(f) &&
        f.data.rows.some((r: { open_interest_usd: number }) => r.open_interest_usd === 500_000)
    )
    // only markets with new readings since the last tick (the funding test touched okx BTC just before)
    expect(u.data.rows.length).toBeLessThan(snap.data.rows.length)
    expect(u.data.rows).toContainEqual(
      expect.objectContaining({ exchange: 'okx', symbol: 'BTC-USDT-SWAP', open_interest_usd: 500_000 })
    )
    c.close()
  })

  it('options: the chain summary when a quote changes it', async () => {
    const c = await connect()
    await subscribe(c, ['options:btc'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'options:BTC')
    const chain = await jsonBody(
      await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: { 'x-api-key': traderKey } })
    )
    expect(snap.data).toEqual(chain)
    const exp = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 3 * 86_400_000 + 8 * 3_600_000
    const d = new Date(exp)
    const code = `${d.getUTCDate()}${['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'][d.getUTCMonth()]}${String(d.getUTCFullYear()).slice(2)}`
    await ingestRecords(srv.base, 'option_quote', [
      {
        ts: Date.now(),
        exchange: 'deribit',
        instrument: `BTC-${code}-50000-C`,
        underlying_price: 50_000,
        mark_price: 0.02,
        open_interest: 12,
        volume_24h: 1,
        mark_iv: 55
      }
    ])
    const u = await c.next(updatesOf('options:BTC'))
    const after = await jsonBody(
      await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: { 'x-api-key': traderKey } })
    )
    expect(u.data).toEqual(after)
    c.close()
  })

  it('whales: new collapsed events at or above the channel significance only', async () => {
    const c = await connect()
    await subscribe(c, ['whales:all:high', 'whales:bsc'])
    await c.next((f) => f.type === 'snapshot' && f.channel === 'whales:all:high')
    await c.next((f) => f.type === 'snapshot' && f.channel === 'whales:bsc:medium')
    const ts = Date.now() - 1_000
    const row = (p: object) => ({
      ts,
      chain: 'ethereum',
      tx_hash: '0xabc',
      log_index: 0,
      block_number: 1,
      address: '0xwhale',
      counterparty: '0xother',
      event_type: 'transfer_out',
      token: 'USDC',
      amount: 3_000_000,
      usd_value: 3_000_000,
      ...p
    })
    await ingestRecords(srv.base, 'whale_transfer', [
      row({}),
      row({ chain: 'bsc', tx_hash: '0xdef', usd_value: 600_000, amount: 600_000 })
    ])
    const high = await c.next(updatesOf('whales:all:high'))
    expect(high.data.events.map((e: { id: string; significance: string }) => [e.id, e.significance])).toEqual([
      ['ethereum:0xabc:0:0xwhale', 'high']
    ])
    const bsc = await c.next(updatesOf('whales:bsc:medium'))
    expect(bsc.data.events).toEqual([
      expect.objectContaining({ chain: 'bsc', tx_hash: '0xdef', usd_value: 600_000, repeat_count: 1 })
    ])
    c.close()
  })

  it('confirm: both directions in the snapshot, an update when the verdict moves', async () => {
    const c = await connect()
    await subscribe(c, ['confirm:BTC'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'confirm:BTC')
    expect(snap.data.symbol).toBe('BTC')
    expect(snap.data.long).toMatchObject({ symbol: 'BTC', direction: 'long' })
    expect(snap.data.short.composite).toBe(snap.data.long.composite === 0 ? 0 : -snap.data.long.composite)
    // an extreme crowded-long funding moves the derivatives score
    await ingestRecords(srv.base, 'funding', [
      { ts: Date.now(), exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', funding_rate: 0.003, interval_hours: 8 }
    ])
    const u = await c.next(updatesOf('confirm:BTC'), 15_000)
    expect(u.seq).toBe(snap.seq + 1)
    expect(u.data.long.composite).not.toBe(snap.data.long.composite)
    expect(u.data.long.derivatives.funding_rate).toBe(0.003)
    c.close()
  })
})
