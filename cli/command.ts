/**
 * @module
 * The shape every command group (`keys`, `import`, `export`) exports, so `main.ts` can dispatch, check
 * flags and print usage without knowing the commands. One file per group, e.g. `cli/keys.ts`.
 */
import type { FlagSpec, ParsedArgs } from './args.js'
import type { AdminClient } from './client.js'

/** Output sinks; each call writes the text as given (callers add the newline). */
export interface Io {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
}

export interface CommandContext {
  readonly args: ParsedArgs
  /** positionals after `<group> <command>`, already checked against `Command.operands` */
  readonly operands: readonly string[]
  readonly client: AdminClient
  readonly io: Io
}

export interface Command {
  readonly name: string
  /** flags and operands as shown in usage, e.g. `--plan <plan> [--name <label>]` */
  readonly synopsis: string
  readonly summary: string
  /** flags of this command, on top of the global ones (`--url`, `--token`, `--help`) */
  readonly flags: FlagSpec
  /** names of the required positional operands, in order; no others are accepted unless `variadic` */
  readonly operands: readonly string[]
  /** the last operand may repeat (`<file>...`) */
  readonly variadic?: boolean
  /** throws `UsageError` for bad flag values (exit 2) and `CliError` for failures (exit 1) */
  run(ctx: CommandContext): Promise<void>
}

export interface CommandGroup {
  readonly name: string
  readonly summary: string
  readonly commands: readonly Command[]
}
