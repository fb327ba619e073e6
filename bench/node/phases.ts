/**
 * @module
 * Where a forwarded call's time goes (bench/node/node.ts, the floor sides): each call split by the client's
 * and the forwarder's monotonic timestamps (`process.hrtime.bigint()`, shared by every process of the
 * machine) into the request's way in (client send → forwarder handler), the node's leg (the forwarder's
 * request to the node and its answer parsed) and the answer's way out (forwarder `end` → client has the
 * answer). For the slowest 1 % of calls, the time each phase took above its own median says which phase
 * makes the tail.
 */

/** one call's four stamps, ns */
export interface CallStamps {
  readonly sent: bigint
  readonly in: bigint
  readonly out: bigint
  readonly done: bigint
}

export interface PhaseFigures {
  /** p50 / p99 of each phase, ms */
  readonly way_in: { readonly p50: number; readonly p99: number }
  readonly node_leg: { readonly p50: number; readonly p99: number }
  readonly way_out: { readonly p50: number; readonly p99: number }
  /**
   * the slowest 1 % of calls (at least one): the mean time each phase took above its median, ms; the
   * phase with the largest share is where the tail is
   */
  readonly tail_excess: { readonly way_in: number; readonly node_leg: number; readonly way_out: number }
  readonly tail_calls: number
}

const ms = (ns: bigint): number => Number(ns) / 1e6
const r3 = (n: number): number => Math.round(n * 1000) / 1000

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export function phases(calls: readonly CallStamps[]): PhaseFigures {
  const rows = calls.map((c) => ({
    total: ms(c.done - c.sent),
    way_in: ms(c.in - c.sent),
    node_leg: ms(c.out - c.in),
    way_out: ms(c.done - c.out)
  }))
  const names = ['way_in', 'node_leg', 'way_out'] as const
  const sorted = Object.fromEntries(names.map((n) => [n, rows.map((r) => r[n]).sort((a, b) => a - b)])) as Record<
    (typeof names)[number],
    number[]
  >
  const tail = [...rows].sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.floor(rows.length / 100)))
  const excess = (n: (typeof names)[number]): number =>
    r3(tail.reduce((s, r) => s + Math.max(0, r[n] - pct(sorted[n], 50)), 0) / tail.length)
  const fig = (n: (typeof names)[number]) => ({ p50: r3(pct(sorted[n], 50)), p99: r3(pct(sorted[n], 99)) })
  return {
    way_in: fig('way_in'),
    node_leg: fig('node_leg'),
    way_out: fig('way_out'),
    tail_excess: { way_in: excess('way_in'), node_leg: excess('node_leg'), way_out: excess('way_out') },
    tail_calls: tail.length
  }
}
