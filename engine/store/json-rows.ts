/** Parses ClickHouse JSONEachRow text (one JSON object per line) into rows. */
export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = []
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    if (end > start) rows.push(JSON.parse(text.slice(start, end)) as T)
    start = end + 1
  }
  return rows
}
