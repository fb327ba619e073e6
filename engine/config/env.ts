/**
 * @module
 * The environment as a TypeBox schema. Every capability declares its variables as one `Type.Object` whose
 * keys are the variable names (engine/webhooks/config.ts, engine/alerts/config.ts, engine/chain/rpc-config.ts,
 * engine/nodeintel/config.ts, ingest/sources/chain/chain-settings.ts, the venues' in server/config.ts), built
 * with the helpers below; server/config.ts joins them into `ENV_SCHEMA`, the one list of the service's
 * variables that the docs are checked against (test/unit/config-env-docs.test.ts).
 *
 * `readEnv` reads an object of variables: a value is trimmed and one of only blanks counts as unset (its
 * `default` applies, or it stays undefined when the variable is `Type.Optional`); an integer or number is
 * converted from its decimal text; then the value is checked against the variable's schema. A value that
 * fails throws ConfigError naming the variable, its accepted form (the schema's `accepted` annotation) and
 * what was given, e.g. `PORT must be an integer from 0 to 65535 (got 'x')`; a `secret` variable's value is
 * not repeated.
 */
import {
  FormatRegistry,
  Kind,
  Type,
  type Static,
  type TObject,
  type TProperties,
  type TSchema,
  type TString,
  type TUnion,
  type TLiteral
} from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConfigError } from './config-error.js'

/** The environment as read at start (`process.env` in production, a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>

/** What a variable's schema carries besides JSON Schema's keywords. */
export interface EnvAnnotations {
  /** the accepted form, in words, completing "NAME must be ..." */
  readonly accepted: string
  /** what it sets (the docs' "meaning") */
  readonly description: string
  /** a key or token: error messages do not repeat its value */
  readonly secret?: boolean
  /** the name the docs give the family it belongs to, e.g. `<ENV>_RPC_URL` for `BSC_RPC_URL` */
  readonly family?: string
}

type Common = Pick<EnvAnnotations, 'description' | 'family'>

/** The variable's trimmed value, or undefined when it is unset or only blanks. */
export function envValue(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim()
}

/** A decimal integer from `minimum` to `maximum`. */
export function EnvInt(o: Common & { readonly default?: number; readonly minimum: number; readonly maximum: number }) {
  return Type.Integer({ ...o, accepted: `an integer from ${o.minimum} to ${o.maximum}` })
}

/** A finite number from `minimum` to `maximum`. */
export function EnvNumber(
  o: Common & { readonly default?: number; readonly minimum: number; readonly maximum: number }
) {
  return Type.Number({ ...o, accepted: `a number from ${o.minimum} to ${o.maximum}` })
}

/** One of `values`. */
export function EnvEnum<const T extends readonly string[]>(values: T, o: Common & { readonly default?: T[number] }) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { ...o, accepted: `one of ${values.join(', ')}` }
  ) as TUnion<TLiteral<T[number]>[]>
}

/** Text of the form `accepted` says, checked by `pattern` where one is given and by the reader otherwise. */
export function EnvText(
  o: Common & {
    readonly accepted: string
    readonly pattern?: string
    readonly default?: string
    readonly secret?: boolean
  }
) {
  return Type.String(o)
}

/** A directory, resolved against the working directory by the reader of the variable. */
export function EnvDir(o: Common & { readonly default?: string }) {
  return Type.String({ ...o, accepted: 'a directory' })
}

/** URL protocols by scheme family: `http` takes http and https, `ws` takes ws and wss. */
const URL_PROTOCOLS = { http: ['http:', 'https:'], ws: ['ws:', 'wss:'] } as const
type UrlScheme = keyof typeof URL_PROTOCOLS

/** `an http(s) URL`, `a ws(s) URL` */
const urlForm = (scheme: UrlScheme): string => `${scheme === 'http' ? 'an' : 'a'} ${scheme}(s) URL`

/** Why `raw` is not a URL of `scheme` with a host, or undefined when it is one. */
function urlProblem(raw: string, scheme: UrlScheme, example: string): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `must be ${urlForm(scheme)} like ${example}`
  }
  const protocols: readonly string[] = URL_PROTOCOLS[scheme]
  if (!protocols.includes(url.protocol) || url.hostname === '') {
    return `must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`
  }
  return undefined
}

/** A comma list's items, trimmed, blanks dropped. */
export function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

for (const scheme of Object.keys(URL_PROTOCOLS) as UrlScheme[]) {
  FormatRegistry.Set(`url:${scheme}`, (v) => urlProblem(v, scheme, '') === undefined)
  FormatRegistry.Set(`url-list:${scheme}`, (v) => commaList(v).every((u) => urlProblem(u, scheme, '') === undefined))
}

/** A URL of `scheme` (http(s) or ws(s)) with a host; `example` is offered by the message. */
export function EnvUrl(scheme: UrlScheme, example: string, o: Common & { readonly default?: string }) {
  return Type.String({ ...o, format: `url:${scheme}`, example, accepted: `${urlForm(scheme)} like ${example}` })
}

/** A comma list of URLs of `scheme`, in order of preference. */
export function EnvUrlList(scheme: UrlScheme, example: string, o: Common) {
  return Type.String({
    ...o,
    format: `url-list:${scheme}`,
    example,
    accepted: `a comma list of ${scheme}(s) URLs like ${example}`
  })
}

/** The annotations of a variable's schema. */
export function annotationsOf(schema: TSchema): EnvAnnotations {
  return schema as unknown as EnvAnnotations
}

/** The message of a value of `name` its schema refuses. */
function refusal(name: string, schema: TSchema, raw: string): string {
  const format = (schema as TString).format
  if (format?.startsWith('url')) {
    const scheme = format.slice(format.indexOf(':') + 1) as UrlScheme
    const example = (schema as { example?: string }).example ?? ''
    const items = format.startsWith('url-list:') ? commaList(raw) : [raw]
    for (const item of items) {
      const problem = urlProblem(item, scheme, example)
      if (problem !== undefined) return `${name} ${problem} (got '${item}')`
    }
  }
  const a = annotationsOf(schema)
  return a.secret === true ? `${name} must be ${a.accepted}` : `${name} must be ${a.accepted} (got '${raw}')`
}

/** The value of `raw` a schema of this kind checks: integers and numbers from their text, the rest as is. */
function converted(schema: TSchema, raw: string): unknown {
  const kind = schema[Kind] as string
  if (kind === 'Integer') return /^-?\d+$/.test(raw) ? Number(raw) : raw
  if (kind === 'Number') return Number(raw)
  return raw
}

/** One variable: its default when unset, else its value checked against `schema`. Throws ConfigError. */
export function readVariable<S extends TSchema>(env: Env, name: string, schema: S): Static<S> | undefined {
  const raw = envValue(env, name)
  if (raw === undefined) return (schema as { default?: Static<S> }).default
  const value = converted(schema, raw)
  if (!Value.Check(schema, value)) throw new ConfigError(refusal(name, schema, raw))
  return value as Static<S>
}

/** Every variable of `schema`, read and checked (see the module comment). Throws ConfigError naming the variable. */
export function readEnv<T extends TProperties>(schema: TObject<T>, env: Env): Static<TObject<T>> {
  const out: Record<string, unknown> = {}
  for (const [name, prop] of Object.entries(schema.properties)) {
    const value = readVariable(env, name, prop)
    if (value !== undefined) out[name] = value
  }
  return out as Static<TObject<T>>
}
