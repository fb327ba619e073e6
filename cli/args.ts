/**
 * @module
 * A tiny command-line flag parser (no dependency). Long flags only, plus `-h` for `--help`: `--flag value`,
 * `--flag=value` and boolean `--flag`; `--` ends the flags. Flags may come before or after positionals.
 * Anything it cannot make sense of throws `UsageError` (the CLI prints usage and exits 2).
 */

/** `string` flags take a value; `boolean` flags take none. */
export type FlagKind = 'string' | 'boolean'
export type FlagSpec = Readonly<Record<string, FlagKind>>

export interface ParsedArgs {
  readonly positionals: readonly string[]
  /** flag name (without `--`) → its value, `true` for a boolean flag; a repeated flag keeps the last value */
  readonly flags: ReadonlyMap<string, string | true>
}

/** A mistake in how the CLI was called: the message is shown above the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const positionals: string[] = []
  const flags = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg === '-h') {
      flags.set('help', true)
      continue
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    if (!arg.startsWith('--')) throw new UsageError(`unknown flag ${arg}`)
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined
    if (kind === undefined) throw new UsageError(`unknown flag --${name}`)
    if (kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`)
      flags.set(name, true)
      continue
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i]
    if (value === undefined || (eq === -1 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`)
    flags.set(name, value)
  }
  return { positionals, flags }
}

/** The value of a `string` flag, or undefined when absent. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name)
  return typeof v === 'string' ? v : undefined
}
