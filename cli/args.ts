/**
 * @module
 * Command-line flags through `node:util` `parseArgs` (its tokens; the checks and messages are the CLI's).
 * Long flags only, plus `-h` for `--help`: `--flag value`, `--flag=value` and boolean `--flag`; `--` ends the
 * flags. Flags may come before or after positionals. Anything it cannot make sense of throws `UsageError`
 * (the CLI prints usage and exits 2).
 */
import { parseArgs as parseTokens } from 'node:util'

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
  const options = Object.fromEntries(Object.entries(spec).map(([name, type]) => [name, { type }]))
  // not strict: unknown flags and missing values come back as tokens, for the CLI's own messages
  const { tokens } = parseTokens({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true })
  const positionals: string[] = []
  const flags = new Map<string, string | true>()
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value)
    if (t.kind !== 'option') continue
    if (!t.rawName.startsWith('--')) {
      // a short flag: `-h` alone is --help; a group such as `-hx` is named as typed
      if (argv[t.index] !== '-h') throw new UsageError(`unknown flag ${argv[t.index]!}`)
      flags.set('help', true)
      continue
    }
    // the name as typed, up to a `=`
    const typed = argv[t.index]!
    const eq = typed.indexOf('=')
    const name = typed.slice(2, eq === -1 ? undefined : eq)
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined
    if (kind === undefined) throw new UsageError(`unknown flag --${name}`)
    if (kind === 'boolean') {
      if (t.value !== undefined) throw new UsageError(`--${name} takes no value`)
      flags.set(name, true)
      continue
    }
    // `--flag --other`: the next flag is not taken as the value
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--')))
      throw new UsageError(`--${name} needs a value`)
    flags.set(name, t.value)
  }
  return { positionals, flags }
}

/** The value of a `string` flag, or undefined when absent. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name)
  return typeof v === 'string' ? v : undefined
}
