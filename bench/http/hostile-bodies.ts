/**
 * @module
 * The memory under hostile bodies, `npm run bench -- bodies` (docs/access.md, "Bodies"). The built server
 * (no sources) is sent, over raw sockets, BODY_CLIENTS concurrent POSTs to `/v1/admin/ingest/trade`, each
 * declaring and sending BODY_MB MB (the route's limit is 256 MiB):
 * - unauthenticated (no admin token): each should get 401 after its headers, the body never read;
 * - authenticated, a body that is not NDJSON records (each should be refused 400 or 503, never buffered
 *   whole in memory).
 * Figures: the server's RSS (VmRSS of its process, MB) before, the peak sampled every RSS_SAMPLE_MS during,
 * and after each phase; per request the status and how many bytes the client had sent when it was answered
 * (status 0: the connection ended without an answer the client read, e.g. reset while it was still writing).
 * The reference is the same server's RSS before the phase, in the same run.
 */
import fs from 'node:fs'
import net from 'node:net'
import { BENCH_ADMIN, startBenchServer } from './bench-server.js'
import { freePort } from '../free-port.js'

const BODY_CLIENTS = Number(process.env['BENCH_BODY_CLIENTS'] ?? 10)
const BODY_MB = Number(process.env['BENCH_BODY_MB'] ?? 250)
/** RSS sampling period during a phase, ms. */
const RSS_SAMPLE_MS = 50
/** Wait after a phase before the "after" reading, ms (lets freed buffers go back). */
const SETTLE_MS = 3_000
/** How long a request may take to be answered before the bench gives up on it, ms. */
const ANSWER_WAIT_MS = 180_000
/** Bytes a client writes at a time. */
const CHUNK = Buffer.alloc(256 * 1024, 'x')

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round(kb / 1024)
}

interface Outcome {
  /** status line's code, or 0 when the connection ended without an answer */
  readonly status: number
  /** body bytes the client had written when the answer (or the close) came */
  readonly sent_mb_at_answer: number
  readonly error?: string
}

/** One POST over a raw socket: writes the body until answered or done; reports status and bytes sent. */
function post(port: number, headers: readonly string[], bytes: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    let sent = 0
    let answer = ''
    let answeredAt = -1
    let error: string | undefined
    s.setEncoding('latin1')
    s.on('data', (d: string) => {
      if (answeredAt < 0) answeredAt = sent
      answer += d
      // a whole answer (head and Content-Length bytes): done, whether or not the server has closed yet
      const end = answer.indexOf('\r\n\r\n')
      const length = end < 0 ? null : /\r\ncontent-length: *(\d+)/i.exec(answer.slice(0, end))
      if (length && answer.length - end - 4 >= Number(length[1])) s.destroy()
    })
    s.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
    // a server that never answers: given up on after ANSWER_WAIT_MS (reported as status 0, error timeout)
    const timer = setTimeout(() => {
      error = 'timeout'
      s.destroy()
    }, ANSWER_WAIT_MS)
    s.on('close', () => {
      clearTimeout(timer)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)
      const at = answeredAt < 0 ? sent : answeredAt
      resolve({ status, sent_mb_at_answer: Math.round(at / 2 ** 20), ...(error ? { error } : {}) })
    })
    s.write(
      [
        'POST /v1/admin/ingest/trade HTTP/1.1',
        'Host: 127.0.0.1',
        `Content-Length: ${bytes}`,
        'Content-Type: application/x-ndjson',
        ...headers,
        '',
        ''
      ].join('\r\n')
    )
    const pump = (): void => {
      while (sent < bytes && answeredAt < 0 && !s.destroyed) {
        const n = Math.min(CHUNK.length, bytes - sent)
        sent += n
        if (!s.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void s.once('drain', pump)
      }
      // answered or all sent: wait for the answer (a half-close would make uWS drop the request)
    }
    pump()
  })
}

async function phase(pid: number, port: number, headers: readonly string[]): Promise<Record<string, unknown>> {
  const before = rssMb(pid)
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), RSS_SAMPLE_MS)
  const started = performance.now()
  const outcomes = await Promise.all(
    Array.from({ length: BODY_CLIENTS }, () => post(port, headers, BODY_MB * 1_000_000))
  )
  const ms = Math.round(performance.now() - started)
  peak = Math.max(peak, rssMb(pid))
  clearInterval(timer)
  await new Promise((r) => setTimeout(r, SETTLE_MS))
  const after = rssMb(pid)
  const statuses: Record<string, number> = {}
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1
  return {
    rss_mb: { before, peak, after },
    peak_over_before_mb: peak - before,
    statuses,
    max_sent_mb_at_answer: Math.max(...outcomes.map((o) => o.sent_mb_at_answer)),
    ms,
    outcomes
  }
}

export async function hostileBodiesBench(): Promise<Record<string, unknown>> {
  const port = await freePort()
  const server = await startBenchServer(port, { SOURCES: 'none' })
  try {
    const unauthenticated = await phase(server.pid, port, [])
    const authenticated = await phase(server.pid, port, [`Authorization: Bearer ${BENCH_ADMIN}`])
    return {
      requests: `${BODY_CLIENTS} concurrent POST /v1/admin/ingest/trade, ${BODY_MB} MB each, raw sockets`,
      unauthenticated,
      authenticated_not_ndjson: authenticated
    }
  } finally {
    await server.stop()
  }
}
