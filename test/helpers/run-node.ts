/**
 * Runs a Node script as a child over a clean environment, the way a user's shell runs the CLI: only PATH and
 * HOME are passed on, plus what the test sets (no ADMIN_TOKEN, PORT or DATA_DIR of the test process).
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { projectRoot } from '../../engine/paths.js'

/** The `tidewatch` CLI (bin/tidewatch.js over dist/: needs `npm run build` first). */
export const CLI_BIN = path.join(projectRoot(), 'bin', 'tidewatch.js')

export interface NodeRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** `node ...args` with `env` over the clean environment; resolves once it has exited, with its output. */
export function runNode(args: readonly string[], env: Record<string, string> = {}): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}
