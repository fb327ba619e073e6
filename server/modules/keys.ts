/**
 * @module
 * API keys and administration: the key routes (with their usage counts) and the admin routes (inserts,
 * imports). The registry and the counters themselves are the core's (server/modules/core.ts): every
 * request is checked against them.
 */
import { adminRoutes } from '../routes/admin.js'
import { keyRoutes } from '../routes/keys.js'
import type { Core } from './core.js'
import type { ServiceModule } from './service-module.js'

export function keysModule(core: Core): ServiceModule {
  return {
    name: 'keys',
    routes: (ctx) => [...keyRoutes(core.keys, core.quota), ...adminRoutes(ctx, core.parser)]
  }
}
