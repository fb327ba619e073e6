/**
 * @module
 * The node benchmark's floor servers (bench/node/node.ts): bench/node/forwarder.ts started as a child
 * process, forwarding one fixed request body to the node.
 */
import { fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Starts bench/node/forwarder.ts on `port`, forwarding `body` to `nodeUrl` (http: the lean client; ws: WsRpc). */
export async function startForwarder(
  nodeUrl: string,
  port: number,
  body: Buffer
): Promise<{ readonly pid: number; stop(): void }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-fwd-')), 'body.json')
  fs.writeFileSync(file, body)
  const script = fileURLToPath(new URL('./forwarder.js', import.meta.url))
  const child: ChildProcess = fork(script, [nodeUrl, String(port), file], { stdio: 'ignore' })
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve())
      child.once('exit', (code) => reject(new Error(`forwarder exited ${code}`)))
    })
  } catch (err) {
    fs.rmSync(path.dirname(file), { recursive: true, force: true })
    throw err
  }
  return {
    pid: child.pid!,
    stop: () => {
      child.kill()
      fs.rmSync(path.dirname(file), { recursive: true, force: true })
    }
  }
}
