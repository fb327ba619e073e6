/**
 * @module
 * bench/results/latest.md: the readable summary of a full `npm run bench` run (bench/run.ts).
 */
import { ROUNDS } from './run-settings.js'

/** The summary text of a full run's results (latest.json). */
export function summary(results: Record<string, any>): string {
  const i = results['ingest']
  const h = results['http']
  const c = results['cold_start']
  return [
    `# Benchmarks (${results['date']}, ${results['machine']}, load generator ${results['load_generator']})`,
    '',
    `Ingest (${i.rows_per_run} rows per run, ${i.dataset}; medians of ${ROUNDS} alternating rounds):`,
    `- e2e ${i.median_rows_per_s.e2e} rows/s, engine ceiling ${i.median_rows_per_s.ceiling}, naive ${i.median_rows_per_s.naive}`,
    `- e2e / ceiling = ${i.e2e_vs_ceiling} (target >= 0.7); e2e / naive = ${i.e2e_vs_naive} (target >= 2)`,
    '',
    `HTTP GET /v1/health vs bare uWS static reply (${h.body_bytes} bytes, 64 connections, ${results['load_generator']} in its own process):`,
    `- health ${h.median_req_per_s.health} req/s (p99 ${h.median_p99_ms.health} ms), bare ${h.median_req_per_s.bare_uws} req/s (p99 ${h.median_p99_ms.bare_uws} ms): ratio ${h.health_vs_bare}`,
    '',
    `Cold start with an existing data dir, spawn to first 200: median ${c.median_ms} ms (runs ${c.runs_ms.join(', ')}; target 3000)`,
    '',
    `Auth + quota on ${results['auth_overhead'].endpoint} (${results['auth_overhead'].body_bytes} bytes): no key ${results['auth_overhead'].median_req_per_s.no_key} req/s, enterprise key ${results['auth_overhead'].median_req_per_s.enterprise_key} req/s: ratio ${results['auth_overhead'].key_vs_no_key} (target >= 0.95); bare uWS same body ${results['auth_overhead'].median_req_per_s.bare_uws_same_body} req/s (chain / bare ${results['auth_overhead'].chain_vs_bare})`,
    '',
    `Options chain rebuild (${results['options_micro'].instruments} instruments): median ${results['options_micro'].chain_rebuild_median_ms} ms (target 5); max pain per expiry (ms): ${JSON.stringify(results['options_micro'].max_pain_median_ms_per_expiry)}`,
    '',
    `Hot reads vs bare uWS same body (64 connections): confirm ${results['read_endpoints'].confirm.median_req_per_s.ours} vs ${results['read_endpoints'].confirm.median_req_per_s.bare_uws_same_body} req/s = ${results['read_endpoints'].confirm.ratio} (p99 ${results['read_endpoints'].confirm.median_p99_ms.ours} ms vs ${results['read_endpoints'].confirm.median_p99_ms.bare_uws_same_body} ms); options chain ${results['read_endpoints'].options_chain.median_req_per_s.ours} vs ${results['read_endpoints'].options_chain.median_req_per_s.bare_uws_same_body} req/s = ${results['read_endpoints'].options_chain.ratio} (p99 ${results['read_endpoints'].options_chain.median_p99_ms.ours} ms vs ${results['read_endpoints'].options_chain.median_p99_ms.bare_uws_same_body} ms); targets ratio >= 0.8, p99 <= 1.25x of bare`,
    '',
    `Binance aggTrade replay (${results['replay'].trades_per_run} trades, adapter + normalizer + batcher into the store): ${results['replay'].median_trades_per_s.replay} trades/s vs engine ceiling ${results['replay'].median_trades_per_s.ceiling} (pre-built TSV, same insert path) = ${results['replay'].replay_vs_ceiling} (target >= 500000 trades/s)`,
    '',
    `Live-state rebuild with a producer writing, median ms by trades of the day: ${JSON.stringify(results['rebuild'].ours.median_rebuild_ms)}; largest / smallest = ${results['rebuild'].ours.ratio_largest_vs_smallest} (target <= 2)`,
    '',
    `Demo market: ${results['steady'].backfill_days}-day backfill (${results['steady'].backfill_rows} rows) live after ${results['steady'].backfill_ms} ms (target 60000);`,
    `then live: max RSS ${results['steady'].max_rss_mb} MB (target 1536), max event-loop lag p99 ${results['steady'].max_loop_p99_ms} ms in steady windows (target 20; ${results['steady'].transition_loop_p99_ms} ms in the window of the switch to live)`,
    ''
  ].join('\n')
}
