/** The server parts tools/openapi-document.mjs starts (server/config.ts, engine/log.ts, server/start.ts). */
export interface ServerParts {
  readonly loadConfig: (env: Record<string, string>) => unknown
  readonly silentLogger: () => unknown
  readonly start: (config: never, log: never) => Promise<unknown>
}
/** The OpenAPI document the server serves, built in process from the route table. */
export function openapiDocument(server: ServerParts): Promise<Record<string, any>>
/** The compiled server's parts under `<root>/dist` (needs `npm run build`). */
export function compiledServer(root: string): Promise<ServerParts>
