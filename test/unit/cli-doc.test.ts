/**
 * docs/cli.md documents every command of the CLI in its own section (`## keys create`, `## export`) with
 * every flag the command accepts, and the global flags, so a command or flag added to cli/ without docs
 * fails here.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { exportGroup } from '../../cli/export.js'
import { importGroup } from '../../cli/import.js'
import { keysGroup } from '../../cli/keys.js'

const DOC = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/cli.md'), 'utf8')

/** the text of the `## <title>` section, up to the next `## ` heading */
function section(title: string): string | undefined {
  const parts = DOC.split(/^## /m)
  return parts.find((p) => p.slice(0, p.indexOf('\n')).trim() === title)
}

const commands = [keysGroup, importGroup, exportGroup].flatMap((g) =>
  g.commands.map((c) => ({ title: c.name ? `${g.name} ${c.name}` : g.name, command: c }))
)

describe('docs/cli.md', () => {
  it.each(commands.map((c) => [c.title, c.command] as const))('documents tidewatch %s and its flags', (title, c) => {
    const text = section(title)
    expect(text, `a "## ${title}" section`).toBeDefined()
    expect(text).toContain(`tidewatch ${title}`)
    for (const flag of Object.keys(c.flags)) expect(text, `--${flag}`).toContain(`--${flag}`)
    for (const operand of c.operands) expect(text, `<${operand}>`).toContain(`<${operand}>`)
  })

  it('documents the global flags and the exit codes', () => {
    const globals = section('Server and token')
    for (const flag of ['--url', '--token', '--help', 'TIDEWATCH_URL', 'ADMIN_TOKEN']) expect(globals).toContain(flag)
    expect(section('Exit codes')).toMatch(/\*\*0\*\*[\s\S]*\*\*1\*\*[\s\S]*\*\*2\*\*/)
  })
})
