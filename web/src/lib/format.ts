/**
 * @module
 * Number and time formatting for tables and labels (en-US, UTC).
 */

export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–'
  const a = Math.abs(v)
  const s =
    a >= 1e9
      ? `${(a / 1e9).toFixed(2)}B`
      : a >= 1e6
        ? `${(a / 1e6).toFixed(2)}M`
        : a >= 1e3
          ? `${(a / 1e3).toFixed(1)}k`
          : a.toFixed(2)
  return `${v < 0 ? '-' : ''}$${s}`
}

export function num(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–'
  return v.toLocaleString('en-US', { maximumFractionDigits: digits })
}

export function pct(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–'
  return `${v.toFixed(digits)}%`
}

/** Epoch milliseconds or an ISO string as `YYYY-MM-DD HH:MM` UTC. */
export function when(v: number | string | null | undefined): string {
  if (v === null || v === undefined || v === '') return '–'
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString().slice(0, 16).replace('T', ' ')
}
