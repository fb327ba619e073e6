/**
 * @module
 * Entry of the `tidewatch` command (bin/tidewatch.js): `tidewatch <group> <command> [operands] [flags]`.
 * Dispatches to the command groups (one file each: `keys.ts`; `import`/`export` go beside it), checks
 * flags and operands, and maps failures to exit codes: 0 done, 1 failed (server unreachable or answered an
 * error), 2 usage or configuration error. It talks to a running server over HTTP; only `import` may open an
 * idle data directory itself (cli/import.ts).
 */
import { UsageError, parseArgs, stringFlag, type FlagSpec } from './args.js'
import { AdminClient, CliError, resolveTarget } from './client.js'
import type { Command, CommandGroup, Io } from './command.js'
import { keysGroup } from './keys.js'
import { exportGroup } from './export.js'
import { importGroup } from './import.js'

const GROUPS: readonly CommandGroup[] = [keysGroup, exportGroup, importGroup]

/** Accepted by every command. */
const GLOBAL_FLAGS: FlagSpec = { url: 'string', token: 'string', help: 'boolean' }

/**
 * Every flag of every command: argv is parsed once with this (so flags may come before the command names),
 * then each command accepts only the global flags and its own. A flag name must mean the same kind in every
 * command that has it.
 */
const ALL_FLAGS: FlagSpec = GROUPS.flatMap((g) => g.commands).reduce<Record<string, FlagSpec[string]>>(
  (all, c) => {
    for (const [name, kind] of Object.entries(c.flags)) {
      if (all[name] !== undefined && all[name] !== kind) throw new Error(`flag --${name} has two kinds`)
      all[name] = kind
    }
    return all
  },
  { ...GLOBAL_FLAGS }
)

const GLOBAL_USAGE = `Global flags:
  --url <url>      server URL; env TIDEWATCH_URL; default http://127.0.0.1:$PORT (PORT defaults to 8080)
  --token <token>  admin token; env ADMIN_TOKEN; default: the file $DATA_DIR/admin_token (DATA_DIR: ./data)
  -h, --help       show this help

Exit codes: 0 done, 1 failed (server unreachable or answered an error), 2 usage or configuration error.
`

/** What the command line had named when it went wrong, to show the most specific usage. */
interface Scope {
  group?: CommandGroup
  command?: Command
}

function usage(scope: Scope): string {
  const groups = scope.group ? [scope.group] : GROUPS
  const lines = groups.flatMap((g) =>
    (scope.command ? [scope.command] : g.commands).map(
      (c) => `  tidewatch ${g.name}${c.name ? ` ${c.name}` : ''} ${c.synopsis}`.trimEnd() + `\n      ${c.summary}`
    )
  )
  return `Usage:\n${lines.join('\n')}\n\n${GLOBAL_USAGE}`
}

async function dispatch(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io, scope: Scope): Promise<number> {
  const args = parseArgs(argv, ALL_FLAGS)
  const help = args.flags.has('help')
  const [groupName, ...after] = args.positionals
  const group = GROUPS.find((g) => g.name === groupName)
  // a group whose one command has no name (`tidewatch export --flags`) takes no command word
  const single = group?.commands.length === 1 && group.commands[0]!.name === '' ? group.commands[0] : undefined
  const commandName = single ? '' : after[0]
  const operands = single ? after : after.slice(1)
  const command = group?.commands.find((c) => c.name === commandName)
  if (group) scope.group = group
  if (command) scope.command = command
  if (help && (groupName === undefined || group) && (commandName === undefined || command)) {
    io.out(usage(scope))
    return 0
  }
  if (groupName === undefined) throw new UsageError('missing command')
  if (!group) throw new UsageError(`unknown command ${JSON.stringify(groupName)}`)
  if (commandName === undefined) {
    throw new UsageError(`missing ${group.name} command (${group.commands.map((c) => c.name).join(', ')})`)
  }
  if (!command) throw new UsageError(`unknown ${group.name} command ${JSON.stringify(commandName)}`)
  for (const name of args.flags.keys()) {
    if (!Object.hasOwn(GLOBAL_FLAGS, name) && !Object.hasOwn(command.flags, name)) {
      throw new UsageError(`--${name} is not a flag of tidewatch ${group.name} ${command.name}`)
    }
  }
  if (operands.length < command.operands.length) {
    throw new UsageError(`missing <${command.operands[operands.length]}>`)
  }
  if (operands.length > command.operands.length && !command.variadic) {
    throw new UsageError(`unexpected argument ${JSON.stringify(operands[command.operands.length])}`)
  }
  const target = resolveTarget({ url: stringFlag(args, 'url'), token: stringFlag(args, 'token') }, env)
  await command.run({ args, operands, client: new AdminClient(target), io })
  return 0
}

/** Runs one command line; returns the exit code. Usage errors print usage to `io.err`. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const scope: Scope = {}
  try {
    return await dispatch(argv, env, io, scope)
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`tidewatch: ${err.message}\n\n${usage(scope)}`)
      return 2
    }
    if (err instanceof CliError) {
      io.err(`tidewatch: ${err.message}\n`)
      return err.exitCode
    }
    throw err
  }
}

/** The process entry used by bin/tidewatch.js: argv, env and stdio of this process. */
export async function runCli(): Promise<void> {
  // `tidewatch keys list | head -1`: a closed pipe is not a failure of the command.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0)
    throw err
  })
  process.exitCode = await main(process.argv.slice(2), process.env, {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text)
  })
}
