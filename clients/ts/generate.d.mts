/** The text of schema.d.ts for an OpenAPI document, formatted with the Prettier settings of `target`. */
export function schemaSource(doc: Record<string, unknown>, target: string): Promise<string>
