/**
 * @module
 * SQL text that cannot be a bound parameter: string literals inside table functions (`file(...)`) and
 * SETTINGS clauses. Everything else goes through bound parameters.
 */

/** A ClickHouse string literal (backslashes and quotes escaped). */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

/** The SQL text of a SETTINGS clause (leading space included), values written as SQL literals. */
export function settingsClause(settings: Readonly<Record<string, string | number>>): string {
  const parts = Object.entries(settings).map(([k, v]) => `${k} = ${typeof v === 'number' ? v : sqlString(v)}`)
  return parts.length === 0 ? '' : ` SETTINGS ${parts.join(', ')}`
}
