/**
 * @module
 * The shape of what a route's declaration cannot say about its answers, for the OpenAPI document
 * (server/openapi.ts). Route groups declare their own notes (server/routes/node.ts,
 * server/routes/account/openapi-notes.ts); server/openapi-operations.ts gathers them.
 */
type Json = Record<string, unknown>

export interface OperationNotes {
  /** appended to the operation's description */
  readonly description?: string
  /** replaces the declared success response; `null` removes it (the route never answers it over HTTP) */
  readonly success?: { readonly status: string; readonly response: Json } | null
  /** further responses by status; a status already documented gets this description appended */
  readonly responses?: Readonly<Record<string, { readonly description: string; readonly headers?: Json }>>
}
