/**
 * @module
 * Watch-list admin (bearer ADMIN_TOKEN, docs/watchlists.md): `GET /v1/admin/watchlists` shows the lists in
 * force; `POST /v1/admin/watchlists/reload` reads WATCHLIST_DIR again. A reload that finds a bad entry
 * answers 400 naming file, line and column, and the lists in force stay.
 */
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../engine/errors.js'
import type { WatchlistRegistry } from '../../engine/watchlist/registry.js'
import { json, type Route } from '../http/types.js'

const WATCHLIST_STATE = Type.Object({
  dir: Type.String({ description: 'WATCHLIST_DIR' }),
  generation: Type.Integer({ description: 'successful loads since start (the load at start is 1)' }),
  loaded_at: Type.String({ format: 'date-time' }),
  wallets: Type.Integer({ description: 'labelled wallets in force' }),
  tokens: Type.Integer({ description: 'tracked tokens in force' }),
  files: Type.Array(
    Type.Object({
      file: Type.String(),
      kind: Type.Union([Type.Literal('wallets'), Type.Literal('tokens')]),
      entries: Type.Integer()
    })
  ),
  reload_errors: Type.Integer({ description: 'reloads refused since start' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'the last refused reload, file and line' })
})

function state(registry: WatchlistRegistry) {
  const list = registry.current.list
  return {
    dir: registry.dir,
    generation: registry.generation,
    loaded_at: new Date(list.loadedAt).toISOString(),
    wallets: list.wallets.length,
    tokens: list.tokens.length,
    files: list.files,
    reload_errors: registry.reloadErrors,
    last_error: registry.lastError
  }
}

export function adminWatchlistRoutes(registry: WatchlistRegistry): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/admin/watchlists',
      access: 'admin',
      summary: 'The watch lists in force (labelled wallets, tracked tokens)',
      tags: ['admin'],
      response: WATCHLIST_STATE,
      handler: () => json(200, state(registry))
    },
    {
      method: 'POST',
      path: '/v1/admin/watchlists/reload',
      access: 'admin',
      summary: 'Read WATCHLIST_DIR again; a bad entry answers 400 and the lists in force stay',
      tags: ['admin'],
      response: WATCHLIST_STATE,
      handler: () => {
        const result = registry.reload()
        if (!result.ok) {
          throw new ApiError('invalid_record', `${result.error}; the watch lists in force are kept`)
        }
        return json(200, state(registry))
      }
    }
  ]
}
