/**
 * Venues are found by convention: every catalog venue (catalog/venues.ts) has its code in
 * `ingest/sources/<id>/venue.ts` (settings and live Source) and `ingest/sources/<id>/replay.ts` (replay
 * normalizer), and every folder under ingest/sources holding a `venue.ts` is a catalog venue.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { VENUE_IDS } from '../../catalog/venues.js'
import { REPLAY_NORMALIZERS } from '../../ingest/record/replay-normalizers.js'
import { VENUES } from '../../ingest/sources/venues.js'

const SOURCES_DIR = path.join(import.meta.dirname, '..', '..', 'ingest', 'sources')

describe('venue modules', () => {
  it.each(VENUE_IDS.map((id) => [id] as const))('%s has venue.ts and replay.ts exporting its module', async (id) => {
    const load = (file: string) => import(/* @vite-ignore */ `../../ingest/sources/${id}/${file}`)
    const live = (await load('venue.js')) as Record<string, unknown>
    const replay = (await load('replay.js')) as Record<string, unknown>
    expect(live['venue']).toMatchObject({ settings: expect.any(Function), create: expect.any(Function) })
    expect(replay['replayNormalizer']).toEqual(expect.any(Function))
    expect(VENUES.find((v) => v.name === id)?.create).toBe((live['venue'] as { create: unknown }).create)
    expect(REPLAY_NORMALIZERS.get(id)).toBe(replay['replayNormalizer'])
  })

  it('every folder with a venue.ts is a catalog venue', () => {
    const folders = fs
      .readdirSync(SOURCES_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(SOURCES_DIR, e.name, 'venue.ts')))
      .map((e) => e.name)
    expect(folders.sort()).toEqual([...VENUE_IDS].sort())
  })

  it('the registry and the replay normalizers follow the catalog order', () => {
    expect(VENUES.map((v) => v.name)).toEqual(VENUE_IDS)
    expect([...REPLAY_NORMALIZERS.keys()]).toEqual(VENUE_IDS)
  })
})
