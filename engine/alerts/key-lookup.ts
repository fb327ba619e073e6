/**
 * @module
 * The API key behind an alert secret, by its public id. KeyRegistry offers no lookup by id (only
 * `authenticate` of a full key and `list`), so this reads its in-memory map, which `load`, `create` and
 * `revoke` keep current: a key revoked on this server stops its alerts at once. A `KeyRegistry.get(id)`
 * would replace this file (engine/access is outside the alerts change).
 */
import type { KeyRecord, KeyRegistry } from '../access/key-registry.js'

export type KeyLookup = (id: string) => KeyRecord | undefined

export function keyLookup(registry: KeyRegistry): KeyLookup {
  // TypeScript's element access reaches the private field; read on every call (load replaces the map)
  return (id) => registry['keys'].get(id)
}
