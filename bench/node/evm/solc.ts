/**
 * @module
 * Compiles Solidity sources with npm `solc` (0.8.37, bundled soljson: offline), optimizer on, EVM version
 * `paris` (no PUSH0: the code must run on every chain's fork and on any test node). Outputs are cached
 * under os.tmpdir() by a hash of the sources, settings and compiler version, so parallel test files and
 * re-runs do not recompile (a write goes to a temporary name and is renamed into place: atomic).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import type { Abi, Hex } from 'viem'

const require = createRequire(import.meta.url)

export interface CompiledContract {
  readonly abi: Abi
  /** creation code */
  readonly bytecode: Hex
  /** runtime code (what a state override injects) */
  readonly deployedBytecode: Hex
}

/** contract name → output; names must be unique across the sources */
export type Compiled = Readonly<Record<string, CompiledContract>>

export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'paris',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } }
} as const

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >
}

/** Compiles `sources` (file name → Solidity text). Throws with solc's messages on any error. */
export function compileSol(sources: Readonly<Record<string, string>>): Compiled {
  const solc = require('solc') as { version(): string; compile(input: string): string }
  const input = JSON.stringify({
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: SOLC_SETTINGS
  })
  const hash = crypto.createHash('sha256').update(solc.version()).update(input).digest('hex').slice(0, 32)
  const cacheFile = path.join(os.tmpdir(), 'tidewatch-solc-cache', `${hash}.json`)
  if (fs.existsSync(cacheFile)) return JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as Compiled
  const out = JSON.parse(solc.compile(input)) as SolcOutput
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`)
  const result: Record<string, CompiledContract> = {}
  for (const file of Object.values(out.contracts)) {
    for (const [name, c] of Object.entries(file)) {
      result[name] = {
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`
      }
    }
  }
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true })
  const tmp = `${cacheFile}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`
  fs.writeFileSync(tmp, JSON.stringify(result))
  fs.renameSync(tmp, cacheFile)
  return result
}

/** Compiles the `.sol` files of a directory (all of them, as one compilation). */
export function compileDir(dir: string): Compiled {
  const sources: Record<string, string> = {}
  for (const f of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.sol'))
    .sort()) {
    sources[f] = fs.readFileSync(path.join(dir, f), 'utf8')
  }
  return compileSol(sources)
}
