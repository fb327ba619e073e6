/**
 * @module
 * The service as a benchmark child process: spawned until its output says it is ready, stopped with
 * SIGTERM and awaited, with an environment of its own data dir and port and no sources.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { ENV } from './run-settings.js'

export function spawnReady(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (ready.test(out)) resolve(child)
    })
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

export async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

export function serverEnv(dir: string, port: number): NodeJS.ProcessEnv {
  return { ...ENV, DATA_DIR: dir, PORT: String(port), SOURCES: 'none', ADMIN_TOKEN: 'bench-admin-token-0123456789' }
}
