/**
 * @module
 * Epoch ms as a ClickHouse `DateTime64(3)` parameter or TSV value: `YYYY-MM-DD hh:mm:ss.sss`, UTC.
 */
const p2 = (n: number): string => (n < 10 ? `0${n}` : String(n))

/**
 * The text of `ms`: built from the UTC fields (~10x cheaper than toISOString and two replaces, which the
 * chain sources' batch encoder pays per event); years outside 1000-9999 as toISOString writes them.
 */
export function sqlTime(ms: number): string {
  const d = new Date(ms)
  const year = d.getUTCFullYear()
  if (!(year >= 1000 && year <= 9999)) return d.toISOString().replace('T', ' ').replace('Z', '')
  const msPart = d.getUTCMilliseconds()
  return `${year}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${msPart < 10 ? '00' : msPart < 100 ? '0' : ''}${msPart}`
}
