/**
 * @module
 * `tidewatch keys create|list|revoke`: API key management through the running server's admin API
 * (`/v1/admin/keys`, docs/admin-api.md). The full key is printed only by `create`, as the server returns it
 * only then.
 */
import { PLAN_NAMES, type PlanName } from '../engine/access/plans.js'
import { UsageError, stringFlag } from './args.js'
import type { CommandGroup } from './command.js'
import { formatTable, safeCell } from './table.js'

/** Longest key name the server accepts, characters (the `name` schema in server/routes/keys.ts). */
const MAX_NAME_LENGTH = 100

interface CreatedKey {
  readonly id: string
  readonly key: string
  readonly plan: PlanName
  readonly name: string
}

interface KeyInfo {
  readonly id: string
  readonly name: string
  readonly plan: PlanName
  /** ISO 8601 UTC */
  readonly created_at: string
  /** ISO 8601 UTC; null while the key works */
  readonly revoked_at: string | null
}

function isPlan(s: string): s is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(s)
}

/** `2026-01-02T10:11:12.345Z` → `2026-01-02 10:11:12` (the table header says UTC). */
function utc(iso: string | null): string {
  return iso === null ? '-' : iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '')
}

export const keysGroup: CommandGroup = {
  name: 'keys',
  summary: 'create, list and revoke API keys',
  commands: [
    {
      name: 'create',
      synopsis: `--plan <${PLAN_NAMES.join('|')}> [--name <label>]`,
      summary: 'create a key; the key is printed once and cannot be shown again',
      flags: { plan: 'string', name: 'string' },
      operands: [],
      async run({ args, client, io }) {
        const plan = stringFlag(args, 'plan')
        if (plan === undefined) throw new UsageError(`--plan is required (one of ${PLAN_NAMES.join(', ')})`)
        if (!isPlan(plan)) {
          throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}; got ${JSON.stringify(plan)}`)
        }
        const name = stringFlag(args, 'name')
        if (name !== undefined && (name.length < 1 || name.length > MAX_NAME_LENGTH)) {
          throw new UsageError(`--name must be 1 to ${MAX_NAME_LENGTH} characters`)
        }
        const created = await client.request<CreatedKey>('POST', '/v1/admin/keys', {
          plan,
          ...(name === undefined ? {} : { name })
        })
        io.out(
          `id:   ${created.id}\nplan: ${created.plan}\nname: ${safeCell(created.name) || '-'}\nkey:  ${created.key}\n\n` +
            'The key is shown only this once: store it now. The server keeps only its hash; a lost key\n' +
            `cannot be recovered, only revoked (tidewatch keys revoke ${created.id}) and replaced.\n`
        )
      }
    },
    {
      name: 'list',
      synopsis: '[--json]',
      summary: 'list keys (never their secrets), revoked ones included',
      flags: { json: 'boolean' },
      operands: [],
      async run({ args, client, io }) {
        const body = await client.request<{ keys: KeyInfo[] }>('GET', '/v1/admin/keys')
        if (args.flags.has('json')) return io.out(JSON.stringify(body, null, 2) + '\n')
        if (body.keys.length === 0) return io.out('no API keys yet (create one with: tidewatch keys create)\n')
        const rows = body.keys.map((k) => [k.id, k.plan, safeCell(k.name) || '-', utc(k.created_at), utc(k.revoked_at)])
        io.out(formatTable(['ID', 'PLAN', 'NAME', 'CREATED (UTC)', 'REVOKED (UTC)'], rows))
      }
    },
    {
      name: 'revoke',
      synopsis: '<id>',
      summary: 'revoke a key by id; it stops working at once',
      flags: {},
      operands: ['id'],
      async run({ operands, client, io }) {
        const id = operands[0]!
        await client.request<{ id: string; revoked: true }>('DELETE', `/v1/admin/keys/${encodeURIComponent(id)}`)
        io.out(`revoked key ${safeCell(id)}; it no longer works\n`)
      }
    }
  ]
}
