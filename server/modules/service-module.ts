/**
 * @module
 * The shape every part of the service has in server/start.ts: a capability (venues, chain sources,
 * signals, webhooks, alerts, node intelligence, accounts, history and export) or a part of the core
 * (storage, the write path, the background loops). Each reads its configuration from the one validated
 * `Config` (server/config.ts), builds what it needs when it is opened, and then exposes:
 *
 * - `sourceFor`: the ingest source it implements for a `SOURCES` entry;
 * - `routes`: its HTTP routes, built once the server context exists;
 * - `health`: its sections of `GET /v1/health` (counters it owns), read at each request;
 * - `start`: its background loops, started under the supervisor in module order before the server listens;
 * - `stop`: what it must end and release, run in reverse module order on a stop, and for the modules
 *   already opened when a later one fails to open.
 *
 * Invariant: a module opened after another may depend on it, so the reverse order never stops a module
 * while a later one still uses it.
 */
import { sleep } from '../../engine/runtime/backoff.js'
import type { Source } from '../../ingest/sources/source.js'
import type { SourceName } from '../config.js'
import type { ServerContext } from '../context.js'
import type { Route } from '../http/types.js'

export interface ServiceModule {
  /** for logs: `storage`, `webhooks`, ... */
  readonly name: string
  /** the source of a `SOURCES` entry this module implements, or undefined when it is another module's */
  sourceFor?(name: SourceName): Source | undefined
  /** its HTTP routes, in the order they are documented */
  routes?(ctx: ServerContext): readonly Route[]
  /**
   * its sections of `GET /v1/health`, keyed by section name (`{ webhooks: {...} }`), read at each request;
   * server/routes/health.ts places them in the answer by its section order
   */
  health?(): Readonly<Record<string, unknown>>
  /** starts its background loops (called once, before the server listens) */
  start?(): void
  /** ends its work and releases what it holds; `deadline` is epoch ms */
  stop?(deadline: number): Promise<void>
}

/** Modules in the order they were opened: started in that order, stopped in reverse. */
export class ModuleList {
  private readonly modules: ServiceModule[] = []

  /** Appends an opened module; returns it. */
  add<M extends ServiceModule>(module: M): M {
    this.modules.push(module)
    return module
  }

  get all(): readonly ServiceModule[] {
    return this.modules
  }

  /** The source of each `SOURCES` entry, from the first module that implements it. */
  sources(names: readonly SourceName[]): Source[] {
    return names.map((name) => {
      for (const m of this.modules) {
        const source = m.sourceFor?.(name)
        if (source) return source
      }
      throw new Error(`source ${name} has no implementation`)
    })
  }

  routes(ctx: ServerContext): Route[] {
    return this.modules.flatMap((m) => m.routes?.(ctx) ?? [])
  }

  /** Every module's `/v1/health` sections, in module order. */
  health(): Record<string, unknown> {
    return Object.assign({}, ...this.modules.map((m) => m.health?.() ?? {})) as Record<string, unknown>
  }

  startAll(): void {
    for (const m of this.modules) m.start?.()
  }

  /**
   * Stops every module, last opened first. A module's stop that fails ends the stop there with its error
   * (the caller exits forced); steps whose failure must not stop the rest catch it themselves.
   */
  async stopAll(deadline: number): Promise<void> {
    for (const m of [...this.modules].reverse()) await m.stop?.(deadline)
  }
}

/**
 * Waits for `work` at most `ms`; the timer is cleared either way, so a stopped server leaves none keeping its
 * process (a test runner's) alive.
 */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  const done = new AbortController()
  try {
    await Promise.race([work, sleep(ms, done.signal)])
  } finally {
    done.abort()
  }
}
