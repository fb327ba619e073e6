/**
 * @module
 * Wiring of the web dashboard for server/start.ts: loads dist/web (built by `npm run build`) and returns
 * the fallback route the application serves outside /v1, or undefined when the dashboard is not built
 * (the API still runs; a warning names the missing folder).
 */
import path from 'node:path'
import type { Logger } from '../../engine/log.js'
import { projectRoot } from '../../engine/paths.js'
import { loadStaticFiles } from './static-files.js'
import { webRoute, type WebRoute } from './web-route.js'

/** Where `npm run build` writes the dashboard (web/vite.config.ts `build.outDir`). */
export function webDistDir(): string {
  return path.join(projectRoot(), 'dist', 'web')
}

export function dashboardRoute(log: Logger, dir = webDistDir()): WebRoute | undefined {
  const files = loadStaticFiles(dir)
  if (!files) {
    log.warn({ dir }, 'web dashboard not built (no index.html): serving the API only; run npm run build')
    return undefined
  }
  return webRoute(files)
}
