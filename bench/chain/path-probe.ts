/**
 * @module
 * The EVM source's JavaScript cost for confirmed ranges, without the store (docs/sources.md
 * "Benchmarks"): `node dist/bench/chain/path-probe.js [transactions] [passes]`. The decode benchmark's
 * recorded transactions (bench/chain/dataset.ts, kept alive for the repeated passes, where decode-variant.ts
 * drops each range once decoded) go through bench/chain/rows.ts's groupPayloads (decodeTx, txEvents, ConfirmedGroup: both tables' TSV, the read API's
 * details, the net-flow readings, the whale_transfers chunk's hash) in the source's write groups, `passes`
 * times in one process (the first pass runs cold code; the read API's details are dropped between passes).
 * Prints one JSON line: main-thread CPU ms per pass (process.cpuUsage: nothing else runs) and bytes encoded.
 * A diagnostic, not a registered benchmark.
 */
import { clearChainDetails } from '../../engine/whales/chain-details.js'
import { releaseSinkBytes } from '../../engine/whales/sink-pool.js'
import { chainDataset } from './dataset.js'
import { drain, groupPayloads, rangesOf } from './rows.js'

function cpuMs(): number {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}

async function main(): Promise<void> {
  const txs = Number(process.argv[2] ?? 200_000)
  const passes = Number(process.argv[3] ?? 3)
  const { inputs, logs } = chainDataset(txs)
  const cpu: number[] = []
  let bytes = 0
  for (let p = 0; p < passes; p++) {
    await new Promise((r) => setImmediate(r))
    clearChainDetails()
    const c0 = cpuMs()
    for (const { payload } of groupPayloads(drain(rangesOf(inputs)))) {
      bytes += payload.eventsTsv.length + payload.transfersTsv.length
      // as the source once a range is stored (engine/whales/sink-pool.ts)
      releaseSinkBytes(payload.eventsTsv)
      releaseSinkBytes(payload.transfersTsv)
    }
    cpu.push(Math.round(cpuMs() - c0))
  }
  process.stdout.write(JSON.stringify({ logs, passes, cpu_ms_per_pass: cpu, bytes_per_pass: bytes / passes }) + '\n')
}
void main()
