/**
 * @module
 * Epoch ms as a ClickHouse `DateTime64(3)` parameter or TSV value: `YYYY-MM-DD hh:mm:ss.sss`, UTC.
 */
export function sqlTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
}
