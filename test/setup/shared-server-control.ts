/**
 * The test-only control channel of the shared server (test/setup/shared-server.ts): a loopback HTTP
 * listener in Vitest's main process that does for a shared file what it would do in-process with its own
 * server: rebuild the live state from the store (the restart cases), forget the cached market list and
 * read the store (row counts).
 * Files reach it through test/helpers/shared-server.ts. Every request is a POST with a JSON body:
 * - `/rebuild` -> 204 once a rebuild started after the request has ended (LiveState.rebuild)
 * - `/markets/invalidate` -> 204; the history market list is read again on its next use (after bulk loads)
 * - `/query` `{sql, params?}` -> 200 with the rows as JSON
 * - `/command` `{sql, params?}` -> 204 (a statement without result, e.g. a DELETE of the file's own rows)
 * Any failure answers 500 with the error's message.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Params } from '../../engine/store/store.js'
import type { Running } from '../../server/start.js'

interface Statement {
  readonly sql: string
  readonly params?: Params
}

async function readStatement(req: http.IncomingMessage): Promise<Statement> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Statement
}

async function answer(running: Running, req: http.IncomingMessage): Promise<unknown> {
  if (req.method !== 'POST') throw new Error(`${req.method} ${req.url}: only POST`)
  switch (req.url) {
    case '/rebuild':
      return running.ctx.live.rebuild()
    case '/markets/invalidate':
      return running.ctx.markets.invalidate()
    case '/query': {
      const s = await readStatement(req)
      return running.ctx.store.query(s.sql, s.params)
    }
    case '/command': {
      const s = await readStatement(req)
      return running.ctx.store.command(s.sql, s.params)
    }
    default:
      throw new Error(`unknown control path ${req.url}`)
  }
}

/** Starts the control listener on a free loopback port; resolves with its base URL and a stop. */
export async function startControl(running: Running): Promise<{ base: string; stop: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    answer(running, req).then(
      (out) => {
        if (out === undefined) res.writeHead(204).end()
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out))
      },
      (err: unknown) => res.writeHead(500).end(err instanceof Error ? err.message : String(err))
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())))
  }
}
