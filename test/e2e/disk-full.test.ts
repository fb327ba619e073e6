/**
 * A full disk during the demo backfill, then more room: the built server runs with DATA_DIR on a small
 * tmpfs that fills while it backfills, and the tmpfs is then enlarged. The service stays up and degraded
 * while it holds the refused batch, then recovers by itself: status ok, no row failed, nothing set aside in
 * journal/failed, the raw trades of the backfilled range are exactly what the generator produces for it (the
 * checkpoint skipped no window), and every candle level counts the raw trades of every symbol.
 *
 * Mounting needs root (CAP_SYS_ADMIN); elsewhere the test is skipped, saying so. CI runs as root.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it, expect } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'
import { CANDLE_LEVELS } from '../../engine/history/candle-repair.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const SEED = 4242
const DAYS = 3
/** Fills during a 3-day backfill (~60 MB once merged, more before the merges). */
const SMALL = '40m'
const LARGE = '400m'
/** How running out of room shows in the server's log: the engine's code 243, or the journal's ENOSPC */
const OUT_OF_SPACE = /NOT_ENOUGH_SPACE|ENOSPC/

/** Why a tmpfs cannot be mounted here (null: it can). */
function mountRefusal(): string | null {
  const probe = tmpDir('tidewatch-mount-probe-')
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe.dir], { stdio: 'pipe' })
    execFileSync('umount', [probe.dir], { stdio: 'pipe' })
    return null
  } catch (err) {
    return (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message
  } finally {
    probe.cleanup()
  }
}

const refusal = mountRefusal()
if (refusal) console.warn(`disk-full test skipped: mounting a tmpfs needs root (CAP_SYS_ADMIN): ${refusal}`)

describe.skipIf(refusal !== null)('a full disk during the demo backfill', () => {
  it('is held and retried, then recovers by itself with every candle level equal to the raw trades', async () => {
    const { dir, cleanup } = tmpDir('tidewatch-disk-full-')
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SMALL}`, 'tmpfs', dir])
    let server: Spawned | undefined
    try {
      const s = (server = spawnServer(
        {
          DATA_DIR: dir,
          SIM_SEED: String(SEED),
          SIM_BACKFILL_DAYS: String(DAYS),
          ADMIN_TOKEN: 'e2e-admin-token-0123456789'
        },
        await freePort()
      ))
      try {
        // the disk fills (the engine or the journal says so in the log): the batch is held and tried again,
        // not failed; the service answers and says degraded
        const full = await waitForHealth(
          s,
          (b) =>
            OUT_OF_SPACE.test(s.stdout + s.stderr) && (b['ingest']?.disk_full_retries >= 2 || b['ingest']?.failed > 0),
          90_000
        )
        expect(full['ingest'].failed).toBe(0)
        expect(full['ingest'].waiting_for_disk).toBe(true)
        expect(full['status']).toBe('degraded')

        execFileSync('mount', ['-o', `remount,size=${LARGE}`, dir])
        const healed = await waitForHealth(
          s,
          (b) =>
            b['status'] === 'ok' &&
            b['sources']?.[0]?.phase === 'live' &&
            b['ingest']?.repairs?.pending === 0 &&
            b['ingest']?.queued === 0,
          120_000
        )
        expect(healed['ingest']).toMatchObject({ failed: 0, waiting_for_disk: false, journal_failed: 0 })
      } finally {
        s.child.kill('SIGTERM')
      }
      expect((await s.exited).code).toBe(0)
      expect(fs.readdirSync(path.join(dir, 'journal')).filter((f) => f !== 'repairs')).toEqual([])

      const store = new ChdbStore({ path: dir, poolSize: 1 })
      try {
        const [state] = await store.query<{ value: string }>(
          'SELECT argMax(value, updated) AS value FROM engine_state WHERE key = {k:String} GROUP BY key',
          { k: `sim:${SEED}` }
        )
        const { liveFrom } = JSON.parse(state!.value) as { liveFrom: number }
        const from = liveFrom - DAYS * 86_400_000
        let generated = 0
        for (const chunk of createSimMarket(SEED).generate(from, liveFrom, 'backfill')) {
          for (const r of chunk) if (r.kind === 'trade') generated++
        }
        const dt = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
        const [backfilled] = await store.query<{ n: number }>(
          "SELECT count() AS n FROM trades WHERE ts >= {from:DateTime64(3, 'UTC')} AND ts < {to:DateTime64(3, 'UTC')}",
          { from: dt(from), to: dt(liveFrom) }
        )
        expect(backfilled!.n).toBe(generated)

        // every level, every symbol: the trades its candles count equal the raw trades
        const perSymbol = async (sql: string): Promise<Record<string, number>> =>
          Object.fromEntries((await store.query<{ k: string; n: number }>(sql)).map((r) => [r.k, Number(r.n)] as const))
        const raw = await perSymbol(
          "SELECT concat(exchange, ':', symbol) AS k, count() AS n FROM trades GROUP BY k ORDER BY k"
        )
        expect(Object.keys(raw).length).toBeGreaterThan(10)
        for (const level of CANDLE_LEVELS) {
          const held = await perSymbol(
            `SELECT concat(exchange, ':', symbol) AS k, sum(trades) AS n FROM ${level.table} GROUP BY k ORDER BY k`
          )
          expect(held, level.table).toEqual(raw)
        }
      } finally {
        await store.close()
      }
    } finally {
      // a failed check leaves the server stopping (or hung): it is ended before its directory goes, so the
      // removal cannot fail on files it still writes and hide the check's own error
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL')
        await server.exited
      }
      execFileSync('umount', ['-l', dir])
      cleanup()
    }
  }, 300_000)
})
