/**
 * The CLI's flag parsing (cli/args.ts, over `node:util` `parseArgs`): the accepted forms and the usage
 * messages of each mistake, written out.
 */
import { describe, expect, it } from 'vitest'
import { UsageError, parseArgs } from '../../cli/args.js'

const spec = { url: 'string', help: 'boolean', json: 'boolean' } as const
const parse = (argv: string[]): unknown => {
  const p = parseArgs(argv, spec)
  return { positionals: p.positionals, flags: Object.fromEntries(p.flags) }
}

describe('parseArgs', () => {
  it.each([
    [
      ['--url', 'http://h:1', 'keys', 'list', '--json'],
      { positionals: ['keys', 'list'], flags: { url: 'http://h:1', json: true } }
    ],
    [['keys', '--url=a=b', 'list', '--url', 'c'], { positionals: ['keys', 'list'], flags: { url: 'c' } }],
    [['-h'], { positionals: [], flags: { help: true } }],
    [['export', '--', '--json', '-h'], { positionals: ['export', '--json', '-h'], flags: {} }],
    [['-'], { positionals: ['-'], flags: {} }],
    [['--url', '-5'], { positionals: [], flags: { url: '-5' } }],
    [['--url='], { positionals: [], flags: { url: '' } }]
  ])('%j parses', (argv, expected) => {
    expect(parse(argv)).toEqual(expected)
  })

  it.each([
    [['--nope'], 'unknown flag --nope'],
    [['--nope=1'], 'unknown flag --nope'],
    [['-x'], 'unknown flag -x'],
    [['-hx'], 'unknown flag -hx'],
    [['--=a'], 'unknown flag --'],
    [['--json=1'], '--json takes no value'],
    [['--url'], '--url needs a value'],
    [['--url', '--json'], '--url needs a value'],
    [['--url', '--'], '--url needs a value'],
    [['keys', '--nope', '--json=1'], 'unknown flag --nope']
  ])('%j is refused: %s', (argv, message) => {
    let err: unknown
    try {
      parse(argv)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(UsageError)
    expect((err as Error).message).toBe(message)
  })
})
