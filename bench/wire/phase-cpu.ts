/**
 * @module
 * Main-thread CPU per message of the wire benchmark's receivers, per phase: the main threads of the server
 * and of the bare relay (bench/http/cpu.ts, /proc, 10 ms ticks), and the server's whole process (the
 * store's threads too), sampled at each phase boundary the venue process announces and divided by the
 * messages sent in that phase. Unlike send-to-receive latency, CPU time per message hardly depends on what
 * else loads the machine (other processes take turns on the cores; they do not add to this thread's time),
 * so it is the figure to compare between changes on a shared machine.
 *
 * `idle` is sampled before the run (nothing sent): the CPU a receiver spends per second on its own (timers,
 * the stream tick, Deribit's polled chain) is subtracted from each phase by its length, leaving the CPU the
 * messages cost (`*_above_idle_us`).
 */
import { performance } from 'node:perf_hooks'
import { mainThreadCpuMs, processCpuMs } from '../http/cpu.js'
import { monoMs } from './clock.js'

interface Sample {
  readonly at: number
  readonly server: number
  readonly serverProcess: number
  readonly relay: number
}

interface Totals {
  wallMs: number
  server: number
  serverProcess: number
  relay: number
}

/** One phase's CPU per message sent, µs. */
export interface PhaseCpuFigures {
  readonly messages: number
  readonly seconds: number
  readonly server_main_us: number
  readonly server_main_above_idle_us: number
  readonly server_process_us: number
  readonly relay_main_us: number
  readonly relay_main_above_idle_us: number
}

const round = (x: number): number => Math.round(x * 10) / 10

export class PhaseCpu {
  private readonly totals = new Map<string, Totals>()
  /** each phase's span on the machine's monotonic clock, ms (to cut a --cpu-prof profile by phase) */
  readonly windows: { readonly phase: string; readonly from_mono_ms: number; to_mono_ms: number }[] = []
  private current: string | null = null
  private last: Sample
  /** CPU per second of wall time with nothing sent, ms/s */
  private idle = { server: 0, serverProcess: 0, relay: 0 }

  constructor(
    private readonly serverPid: number,
    private readonly relayPid: number
  ) {
    this.last = this.sample()
  }

  private sample(): Sample {
    return {
      at: performance.now(),
      server: mainThreadCpuMs(this.serverPid),
      serverProcess: processCpuMs(this.serverPid),
      relay: mainThreadCpuMs(this.relayPid)
    }
  }

  /** Measures the receivers' CPU per second while nothing is sent, over `ms`. */
  async measureIdle(ms: number): Promise<void> {
    const a = this.sample()
    await new Promise((r) => setTimeout(r, ms))
    const b = this.sample()
    const s = (b.at - a.at) / 1000
    this.idle = {
      server: (b.server - a.server) / s,
      serverProcess: (b.serverProcess - a.serverProcess) / s,
      relay: (b.relay - a.relay) / s
    }
    this.last = b
  }

  /** A phase begins (`null`: the run ended); what was spent since the last call goes to the phase before. */
  enter(phase: string | null): void {
    const now = this.sample()
    if (this.current !== null) {
      const t = this.totals.get(this.current) ?? { wallMs: 0, server: 0, serverProcess: 0, relay: 0 }
      t.wallMs += now.at - this.last.at
      t.server += now.server - this.last.server
      t.serverProcess += now.serverProcess - this.last.serverProcess
      t.relay += now.relay - this.last.relay
      this.totals.set(this.current, t)
    }
    const mono = monoMs()
    const open = this.windows.at(-1)
    if (open && open.to_mono_ms === 0) open.to_mono_ms = mono
    if (phase !== null) this.windows.push({ phase, from_mono_ms: mono, to_mono_ms: 0 })
    this.current = phase
    this.last = now
  }

  /** Per phase name (phases of one name summed), given the messages sent in each. */
  figures(sent: Readonly<Record<string, number>>): Record<string, PhaseCpuFigures> & { idle_ms_per_s: unknown } {
    const out: Record<string, unknown> = {
      idle_ms_per_s: {
        server_main: round(this.idle.server),
        server_process: round(this.idle.serverProcess),
        relay_main: round(this.idle.relay)
      }
    }
    for (const [name, t] of this.totals) {
      const n = sent[name] ?? 0
      if (n === 0) continue
      const s = t.wallMs / 1000
      const us = (ms: number): number => round((ms * 1000) / n)
      out[name] = {
        messages: n,
        seconds: round(s),
        server_main_us: us(t.server),
        server_main_above_idle_us: us(t.server - this.idle.server * s),
        server_process_us: us(t.serverProcess),
        relay_main_us: us(t.relay),
        relay_main_above_idle_us: us(t.relay - this.idle.relay * s)
      } satisfies PhaseCpuFigures
    }
    return out as Record<string, PhaseCpuFigures> & { idle_ms_per_s: unknown }
  }
}
