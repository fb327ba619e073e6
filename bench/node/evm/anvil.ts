/**
 * @module
 * A real local EVM node for tests and benchmarks: anvil from npm `@foundry-rs/anvil` (the platform binary, no install
 * script needed), on 127.0.0.1 with `--port 0`; the port is read from its "Listening on" line. The process
 * is killed by `stop()` and, as a safety net, when the test process exits.
 *
 * Disk: once a chain outgrows anvil's in-memory state window (a few thousand blocks), anvil writes every older
 * block's state as JSON under `$HOME/.foundry/anvil/tmp/` (~450 KB per block: 4.5 GB for the 10,000-block
 * backfill benchmark) and never removes it, not even on SIGTERM. Each anvil therefore runs with its own
 * `HOME` in a fresh directory under the OS temp dir, removed once the process has exited (`stop()`) and
 * again when this process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'

const require = createRequire(import.meta.url)

/** The anvil binary of the installed platform package (the npm wrapper only forwards to it). */
export function anvilBinary(): string {
  const pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json')
  return path.join(path.dirname(pkg), 'bin', 'anvil')
}

export interface Anvil {
  readonly url: string
  readonly port: number
  /** the anvil process (benchmarks read its CPU time) */
  readonly pid: number
  /** the private HOME anvil runs with (its persisted states go below it); removed once anvil has exited */
  readonly home: string
  /** one JSON-RPC call; throws with the node's error message */
  rpc<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>
  stop(): Promise<void>
}

export interface AnvilOptions {
  readonly chainId: number
  /** interval mining, seconds (default: a block per transaction) */
  readonly blockTimeSec?: number
  readonly args?: readonly string[]
}

const running = new Set<ChildProcess>()
/** private HOME directories of anvils not yet cleaned up */
const homes = new Set<string>()
process.once('exit', () => {
  for (const p of running) p.kill('SIGKILL')
  for (const home of homes) removeHome(home)
})

function removeHome(home: string): void {
  fs.rmSync(home, { recursive: true, force: true })
  homes.delete(home)
}

export async function startAnvil(opts: AnvilOptions): Promise<Anvil> {
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(opts.chainId)]
  if (opts.blockTimeSec !== undefined) args.push('--block-time', String(opts.blockTimeSec))
  args.push(...(opts.args ?? []))
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tidewatch-anvil-'))
  homes.add(home)
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: home } })
  running.add(child)
  child.once('exit', () => removeHome(home))
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`anvil did not start in 15 s:\n${out}`)), 15_000)
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      const m = /Listening on [\d.]+:(\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        child.stdout!.off('data', onData)
        child.stdout!.resume() // keep draining (transaction logs) so anvil never blocks on a full pipe
        resolve(Number(m[1]))
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`anvil exited with ${code}:\n${out}`))
    })
  })
  const url = `http://127.0.0.1:${port}`
  let id = 0
  return {
    url,
    port,
    pid: child.pid!,
    home,
    async rpc<T>(method: string, params: readonly unknown[] = []): Promise<T> {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })
      })
      const body = (await res.json()) as { result?: T; error?: { message: string } }
      if (body.error) throw new Error(`${method}: ${body.error.message}`)
      return body.result as T
    },
    stop: () =>
      new Promise<void>((resolve) => {
        running.delete(child)
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
  }
}
