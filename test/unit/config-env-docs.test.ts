/**
 * The environment schema (server/config.ts `ENV_SCHEMA`) and the docs' variable tables name the same
 * variables: every variable the service reads is documented (by name, or by the name of its family such as
 * `<ENV>_RPC_URL`), and every variable a table lists is one the service reads.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ENV_SCHEMA, loadConfig, ConfigError } from '../../server/config.js'
import { annotationsOf } from '../../engine/config/env.js'
import { projectRoot } from '../../engine/paths.js'

const DOC_FILES = [
  'README.md',
  ...fs
    .readdirSync(path.join(projectRoot(), 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
]
const docs = new Map(DOC_FILES.map((f) => [f, fs.readFileSync(path.join(projectRoot(), f), 'utf8')]))
const allDocs = [...docs.values()].join('\n')

const variables = Object.entries(ENV_SCHEMA.properties).map(([name, schema]) => ({
  name,
  family: annotationsOf(schema).family
}))

/** A family's suffix: `<ENV>_RPC_URL` -> `_RPC_URL` (the docs write the placeholder as `<ENV>`, `<CHAIN>`, ...). */
const suffixOf = (family: string): string => family.slice(family.indexOf('>') + 1)
const familySuffixes = new Set(variables.flatMap((v) => (v.family === undefined ? [] : [suffixOf(v.family)])))

/** The variables the first column of each `| variable | ...` table of `text` lists. */
function tabledVariables(text: string): string[] {
  const out: string[] = []
  let inTable = false
  for (const line of text.split('\n')) {
    if (/^\|\s*variable\s*\|/i.test(line)) {
      inTable = true
      continue
    }
    if (!line.startsWith('|')) {
      inTable = false
      continue
    }
    if (!inTable || /^\|\s*-/.test(line)) continue
    const first = line.split('|')[1] ?? ''
    for (const m of first.matchAll(/`([^`]+)`/g)) {
      const token = m[1]!.split('=')[0]!
      if (/^(<[A-Z]+>_)?[A-Z][A-Z0-9_]*$/.test(token)) out.push(token)
    }
  }
  return out
}

describe('environment variables: schema and docs', () => {
  it('every variable of the schema is documented by name or by its family', () => {
    const missing = variables.filter((v) => {
      const named = new RegExp(`\\b${v.name}\\b`).test(allDocs)
      const family = v.family !== undefined && new RegExp(`<[A-Z]+>${suffixOf(v.family)}\\b`).test(allDocs)
      return !named && !family
    })
    expect(missing.map((v) => v.name)).toEqual([])
  })

  it("every variable in the docs' variable tables is in the schema", () => {
    const names = new Set(variables.map((v) => v.name))
    const unknown: string[] = []
    for (const [file, text] of docs) {
      for (const token of tabledVariables(text)) {
        const known = token.startsWith('<') ? familySuffixes.has(suffixOf(token)) : names.has(token)
        if (!known) unknown.push(`${file}: ${token}`)
      }
    }
    expect(unknown).toEqual([])
    // the tables are read at all: the README's lists PORT and the families of the chain nodes
    expect(tabledVariables(docs.get('README.md')!)).toEqual(expect.arrayContaining(['PORT', '<CHAIN>_RPC_URL']))
  })

  it('refuses a bad value of any schema integer naming the variable and its accepted form', () => {
    for (const [name, schema] of Object.entries(ENV_SCHEMA.properties)) {
      if ((schema as { type?: string }).type !== 'integer') continue
      const a = annotationsOf(schema)
      expect(() => loadConfig({ [name]: '1.5x' }), name).toThrow(ConfigError)
      expect(() => loadConfig({ [name]: '1.5x' }), name).toThrow(`${name} must be ${a.accepted} (got '1.5x')`)
    }
  })

  it('does not repeat a secret value in its message', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'short secret' })).toThrow(
      /^ADMIN_TOKEN must be at least 16 characters without spaces$/
    )
    expect(() => loadConfig({ WEBHOOK_KEY: 'abc' })).toThrow(/^WEBHOOK_KEY must be 32 random bytes/)
  })
})
