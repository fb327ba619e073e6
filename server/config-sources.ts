/**
 * @module
 * `SOURCES`: the names it accepts (the demo market, every venue of the registry, `live`, `none`, chain
 * sources, `replay:<file or dir>`) and how a value is read into the ordered list of sources to run.
 */
import fs from 'node:fs'
import path from 'node:path'
import { VENUES, type VenueName } from '../ingest/sources/venues.js'
import { ConfigError } from '../engine/config/config-error.js'
import { commaList, type Env } from '../engine/config/env.js'
import { chainSourcesFor } from '../ingest/sources/chain/chain-settings.js'
import { isChainSourceName, type ChainSourceName } from '../ingest/sources/chain/chain-source-names.js'

/** A source to run: the demo market, a venue, `replay:<file or dir>` (a recording, RECORD_DIR, through the venue adapters) or a chain source (`evm:<chain>`, `solana`). */
export type SourceName = 'sim' | VenueName | `replay:${string}` | ChainSourceName
/** Plain names SOURCES accepts: the demo market, every venue of the registry, `live` and `none` (`replay:<path>` on top). */
export const KNOWN_SOURCES: readonly string[] = ['sim', ...VENUES.map((v) => v.name), 'live', 'none']
/** What `SOURCES=live` means: the registry's venues marked live (ingest/sources/venues.ts). */
export const LIVE_VENUES: readonly VenueName[] = VENUES.filter((v) => v.live).map((v) => v.name)
/** The accepted form of SOURCES, as its messages and the variable tables state it. */
export const SOURCES_ACCEPTED = `a comma list of ${KNOWN_SOURCES.join(', ')} or replay:<file or dir>`

/**
 * SOURCES read: names checked, `none` alone, `live` and `chains` expanded, duplicates dropped, replay paths
 * resolved (a missing one refused).
 */
export function parseSources(env: Env, raw: string): readonly SourceName[] {
  const list = commaList(raw)
  const bad = list.find(
    (s) => !KNOWN_SOURCES.includes(s) && !s.startsWith('replay:') && s !== 'chains' && !isChainSourceName(s)
  )
  if (bad !== undefined || list.length === 0) {
    throw new ConfigError(`SOURCES must be ${SOURCES_ACCEPTED} (got '${raw}')`)
  }
  if (list.includes('none') && list.length > 1) throw new ConfigError(`SOURCES=none cannot be combined (got '${raw}')`)
  const out: SourceName[] = []
  for (const s of list) {
    if (s === 'none') continue
    // `chains` expands to every chain with a node URL; a named chain needs its URL
    if (s === 'chains' || isChainSourceName(s)) {
      for (const name of chainSourcesFor(s, env)) if (!out.includes(name)) out.push(name)
      continue
    }
    if (s.startsWith('replay:')) {
      const file = s.slice('replay:'.length)
      if (!file || !fs.existsSync(file)) throw new ConfigError(`SOURCES=${s}: no such file or directory '${file}'`)
      out.push(`replay:${path.resolve(file)}`)
    } else {
      for (const name of s === 'live' ? LIVE_VENUES : [s as SourceName]) if (!out.includes(name)) out.push(name)
    }
  }
  return out
}
