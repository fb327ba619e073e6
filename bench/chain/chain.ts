/**
 * @module
 * `npm run bench -- chain` (docs/sources.md, "Benchmarks"): the chain sources' figures, each against its same-run reference,
 * alternating rounds, every run in a fresh process and data directory:
 * - decode: recorded receipts decoded, collapsed and stored (chain_whale_events + whale_transfers with its
 *   flow views) vs the store's ceiling for the same pre-built rows (target: >= 200,000 logs/s), on the worst
 *   case (every log whale-sized) and on a realistic mix (mostly small transfers, read through the source's
 *   candidate filter first);
 * - backfill: 10,000 blocks of a local anvil read by the evm:ethereum source (blocks/s, JSON-RPC calls per
 *   block) vs the bare reads through plain viem (the node's own pace);
 * - live: lag behind the node's head at one block a second (target < 2 s).
 * Results: bench/results/chain.json.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath, projectRoot } from '../../engine/paths.js'
import { median } from '../stats.js'
import type { ThreadCpu } from './thread-cpu.js'

const TXS = Number(process.env['BENCH_CHAIN_TXS'] ?? 200_000)
/** whale transactions of the realistic mix (each with 19 small transfers: ~448,000 logs read) */
const MIXED_WHALES = 20_000
/** `decode`: only the decode figures (the backfill and live runs need anvil and take minutes) */
const ONLY = process.env['BENCH_CHAIN_ONLY']
const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }
const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100

/** a decode run's CPU per kind of thread (decode-variant.ts `cpu_threads_s`; null off Linux) */
function threadsOf(res: Record<string, number>): ThreadCpu | null {
  return ((res as Record<string, unknown>)['cpu_threads_s'] as ThreadCpu | null | undefined) ?? null
}

/** the median of each kind of thread's CPU over runs; null when no run measured it */
function medianThreads(runs: Array<ThreadCpu | null>): ThreadCpu | null {
  const measured = runs.filter((r): r is ThreadCpu => r !== null)
  if (measured.length === 0) return null
  const m = (k: keyof ThreadCpu): number => median(measured.map((r) => r[k]))
  return { main: m('main'), store: m('store'), merges: m('merges'), node_threads: m('node_threads') }
}

function run(script: string, args: string[]): Record<string, number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-chain-'))
  try {
    const out = execFileSync(process.execPath, [distPath('bench', 'chain', script), args[0]!, dir, ...args.slice(1)], {
      env: ENV,
      encoding: 'utf8'
    })
    return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export async function chainBench(rounds: number): Promise<Record<string, unknown>> {
  // file: the service's insert path; inline: the path before (decode-variant.ts, `inserter`)
  // mixed: the realistic mix (decode-variant.ts `workload`), against its own ceiling (mixedceiling)
  const keys = ['ours', 'ceiling', 'ours_inline', 'ceiling_inline', 'mixed', 'mixedceiling']
  const decode: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]))
  const cpu: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]))
  const threads: Record<string, Array<ThreadCpu | null>> = Object.fromEntries(keys.map((k) => [k, []]))
  let mixedLogs = 0
  const backfill: Record<string, Array<Record<string, number>>> = { backfill: [], bare: [] }
  const live: Array<Record<string, number>> = []
  let logs = 0
  for (let r = 0; r < rounds; r++) {
    const order = [...keys]
    for (const key of r % 2 ? order.reverse() : order) {
      const [v, mode] = key.split('_') as [string, string | undefined]
      const mixed = v.startsWith('mixed')
      const res = run('decode-variant.js', [v, String(mixed ? MIXED_WHALES : TXS), mode ?? 'file'])
      if (mixed) mixedLogs = res['logs']!
      else logs = res['logs']!
      decode[key]!.push(res['logs_per_s']!)
      cpu[key]!.push(res['cpu_s']!)
      const t = threadsOf(res)
      threads[key]!.push(t)
      const split = t === null ? '' : ` (main ${t.main}, store ${t.store}, merges ${t.merges}, node ${t.node_threads})`
      console.log(`chain decode round ${r + 1} ${key}: ${res['logs_per_s']} logs/s, ${res['cpu_s']} CPU-s${split}`)
    }
    if (ONLY === 'decode') continue
    for (const v of r % 2 ? ['bare', 'backfill'] : ['backfill', 'bare']) {
      const res = run('node-variant.js', [v])
      backfill[v]!.push(res)
      console.log(
        `chain backfill round ${r + 1} ${v}: ${res['blocks_per_s']} blocks/s, ${res['rpc_calls_per_block']} calls/block`
      )
    }
    const l = run('node-variant.js', ['live'])
    live.push(l)
    console.log(`chain live round ${r + 1}: lag median ${l['lag_s_median']} s, p99 ${l['lag_s_p99']} s`)
  }
  const m = (xs: Array<Record<string, number>>, k: string): number => median(xs.map((x) => x[k]!))
  const ours = median(decode['ours']!)
  const ceiling = median(decode['ceiling']!)
  const cpuOf = (k: string): number => median(cpu[k]!)
  const decodeResult = {
    logs_per_run: logs,
    dataset: `${TXS} transactions (70% USDC transfers, 10% WETH transfers, 20% two-hop swaps with 6 logs), seed 42`,
    runs_logs_per_s: decode,
    median_logs_per_s: {
      ours,
      ceiling,
      ours_inline: median(decode['ours_inline']!),
      ceiling_inline: median(decode['ceiling_inline']!)
    },
    ours_vs_ceiling: ratio(ours, ceiling),
    // process CPU (all threads) per run: less sensitive than wall time to the shared machine's load
    runs_cpu_s: cpu,
    median_cpu_s: { ours: cpuOf('ours'), ceiling: cpuOf('ceiling') },
    median_logs_per_cpu_s: { ours: Math.round(logs / cpuOf('ours')), ceiling: Math.round(logs / cpuOf('ceiling')) },
    // the same CPU per kind of thread (bench/chain/thread-cpu.ts): which side a change moved
    runs_cpu_threads_s: threads,
    median_cpu_threads_s: { ours: medianThreads(threads['ours']!), ceiling: medianThreads(threads['ceiling']!) },
    target_logs_per_s: 200_000,
    realistic_mix: {
      dataset: `${MIXED_WHALES} whale transactions of the dataset above, each among 19 small USDC transfers (an assumed share, 1 in 20), read as the source reads a range: the eth_getLogs answer through the candidate filter, then the candidates' receipts`,
      logs_per_run: mixedLogs,
      median_logs_per_s: { ours: median(decode['mixed']!), ceiling: median(decode['mixedceiling']!) },
      median_cpu_s: { ours: cpuOf('mixed'), ceiling: cpuOf('mixedceiling') }
    }
  }
  const result =
    ONLY === 'decode'
      ? { decode: decodeResult }
      : {
          decode: decodeResult,
          backfill: {
            blocks: backfill['backfill']![0]?.['blocks'],
            runs: backfill,
            median_blocks_per_s: {
              source: m(backfill['backfill']!, 'blocks_per_s'),
              bare_viem: m(backfill['bare']!, 'blocks_per_s')
            },
            source_vs_bare: ratio(m(backfill['backfill']!, 'blocks_per_s'), m(backfill['bare']!, 'blocks_per_s')),
            rpc_calls_per_block: {
              source: m(backfill['backfill']!, 'rpc_calls_per_block'),
              bare_viem: m(backfill['bare']!, 'rpc_calls_per_block')
            }
          },
          live: {
            runs: live,
            median_lag_s: m(live, 'lag_s_median'),
            p99_lag_s: m(live, 'lag_s_p99'),
            max_lag_s: Math.max(...live.map((l) => l['lag_s_max']!)),
            target_lag_s: 2
          }
        }
  const dir = path.join(projectRoot(), 'bench', 'results')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, ONLY === 'decode' ? 'chain-decode.json' : 'chain.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: `${os.cpus().length} cores, node ${process.version}`,
        rounds,
        ...result
      },
      null,
      2
    ) + '\n'
  )
  return result
}
