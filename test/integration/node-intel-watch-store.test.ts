/**
 * The watch list's and the verdict history's rows in a real chDB store (engine/nodeintel/watch-store.ts,
 * schemas/020_token_verdicts.sql): a registration written, removed and written again reads back as its
 * newest version (a removal hides it); verdict rows read back newest first with their nullable taxes,
 * trigger and changed fields intact, paged, and with the total.
 */
import { describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import {
  insertVerdict,
  latestVerdict,
  loadWatches,
  readHistory,
  saveWatch,
  type VerdictRow
} from '../../engine/nodeintel/watch-store.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const db = useMigratedStore()
const A: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const B: Address = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512'

const row = (over: Partial<VerdictRow>): VerdictRow => ({
  chain: 'bsc',
  token: A,
  verdict: 'ok',
  is_honeypot: false,
  method: 'simulate_v1_wallet',
  buy_tax_pct: 0,
  sell_tax_pct: 0.0001,
  transfer_tax_pct: null,
  block_number: 10,
  checked_at: '2026-11-29T02:00:00.123Z',
  reasons: [],
  changed: [],
  trigger: { kind: 'watch', tx_hash: null, block_number: null, detail: null, from: null },
  ...over
})

describe('watch list and verdict history rows', () => {
  it('a registration reads back as its newest version; a removal hides it', async () => {
    const s = db.store
    const w = { key_id: 'k1', chain: 'bsc' as const, token: A, created_ms: Date.UTC(2026, 10, 29, 2) }
    await saveWatch(s, w, false, 1)
    await saveWatch(s, { ...w, token: B }, false, 2)
    await saveWatch(s, { ...w, token: B }, true, 3)
    expect((await loadWatches(s)).map((r) => [r.key_id, r.chain, r.token, r.created_ms])).toEqual([
      ['k1', 'bsc', A, w.created_ms]
    ])
    await saveWatch(s, { ...w, token: B }, false, 4)
    expect((await loadWatches(s)).map((r) => r.token).sort()).toEqual([A, B].sort())
  })

  it('verdict rows read back newest first, paged, with their nulls, trigger and changes', async () => {
    const s = db.store
    await insertVerdict(s, row({}))
    const changed = row({
      verdict: 'honeypot',
      is_honeypot: true,
      sell_tax_pct: 98.995,
      block_number: 14,
      checked_at: '2026-11-29T02:00:05.456Z',
      reasons: ['sell tax 98.995% >= 90%'],
      changed: ['verdict', 'sell_tax_pct'],
      trigger: {
        kind: 'owner_tx',
        tx_hash: `0x${'ab'.repeat(32)}`,
        block_number: 13,
        detail: '0x0b78f9c0',
        from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
      }
    })
    await insertVerdict(s, changed)
    const page = await readHistory(s, 'bsc', A, 10, 0)
    expect(page.total).toBe(2)
    expect(page.rows).toEqual([changed, row({})])
    expect((await readHistory(s, 'bsc', A, 1, 1)).rows).toEqual([row({})])
    expect(await latestVerdict(s, 'bsc', A)).toEqual(changed)
    expect(await latestVerdict(s, 'avax', A)).toBeNull()
    expect((await readHistory(s, 'bsc', B, 10, 0)).total).toBe(0)
  })
})
