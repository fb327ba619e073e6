/**
 * @module
 * The probe's JSON-RPC request body, pre-serialized (the honeypot check's hot path). The body is ~11 KB,
 * almost all of it the probe's runtime code in the state override, and per chain only the token changes
 * (and the gas price, every few seconds at most). So the body is produced once by viem itself: viem's
 * `call` action runs with `probeCall()`'s parameters and a placeholder token over a transport that
 * captures the params instead of sending them, and the text is laid out exactly as viem's http transport
 * lays it out (`{"jsonrpc":"2.0","id":…,"method":"eth_call","params":[…]}`). A check then splices the
 * token (its 40 lower-case hex digits, as viem's ABI encoder writes an address) and a request id into that
 * text: byte for byte the body viem would send (test/unit/nodeintel-probe-fast.test.ts compares them on
 * the wire).
 */
import { createPublicClient, custom, type Address } from 'viem'
import { call } from 'viem/actions'
import { probeCall, type ProbeInput } from './probe.js'

/** Placeholder token the template is built with: its hex must occur once in the body (checked). */
const PLACEHOLDER: Address = `0x${'5e771'.repeat(8)}`

/** The probe body around its two variable parts, as ASCII bytes (sent as bytes: no string flattening per call). */
export interface ProbeTemplate {
  /** the body before the request id */
  readonly head: Buffer
  /** from the id to the token's hex digits */
  readonly mid: Buffer
  /** after the token's hex digits */
  readonly tail: Buffer
}

/** Builds the template from viem's own serialization of the probe call with `PLACEHOLDER` as the token. */
export async function probeTemplate(input: Omit<ProbeInput, 'token'>): Promise<ProbeTemplate> {
  let captured: { method: string; params: unknown } | undefined
  const capture = createPublicClient({
    transport: custom({
      request: ({ method, params }: { method: string; params: unknown }) => {
        captured = { method, params }
        return Promise.resolve('0x')
      }
    })
  })
  await call(capture, probeCall({ ...input, token: PLACEHOLDER }))
  if (captured?.method !== 'eth_call') throw new Error('probe template: viem sent no eth_call')
  // the layout of viem's http transport (utils/rpc/http.ts: stringify({ jsonrpc, id, ...body }))
  const params = JSON.stringify(captured.params)
  const parts = params.split(PLACEHOLDER.slice(2).toLowerCase())
  if (parts.length !== 2) throw new Error(`probe template: the placeholder token occurs ${parts.length - 1} times`)
  const head = '{"jsonrpc":"2.0","id":'
  const mid = `,"method":"eth_call","params":${parts[0]!}`
  const tail = `${parts[1]!}}`
  if (!/^[\x20-\x7e]*$/.test(head + mid + tail)) throw new Error('probe template: the body is not printable ASCII')
  return { head: Buffer.from(head, 'latin1'), mid: Buffer.from(mid, 'latin1'), tail: Buffer.from(tail, 'latin1') }
}

/**
 * The body of the probe call for `token` with JSON-RPC id `id` (a safe integer): one buffer per call, the
 * template's parts copied in.
 */
export function probeBodyBytes(t: ProbeTemplate, token: Address, id: number): Buffer {
  const { head, mid, tail } = t
  const idText = String(id)
  const out = Buffer.allocUnsafe(head.length + idText.length + mid.length + 40 + tail.length)
  let at = head.copy(out, 0)
  at += out.write(idText, at, 'latin1')
  at += mid.copy(out, at)
  at += out.write(token.slice(2).toLowerCase(), at, 'latin1')
  tail.copy(out, at)
  return out
}

/**
 * The per-chain template cache: rebuilt when the gas price (or, in tests, the probe's inputs) change,
 * never more than once at a time.
 */
export class ProbeBodies {
  private current: Promise<ProbeTemplate> | null = null
  private gasPrice: bigint | null = null
  private id = 0

  constructor(private readonly input: Omit<ProbeInput, 'token' | 'gasPrice'>) {}

  /** the body for `token` at `gasPrice`, with the next request id (bytes, as sent) */
  async body(token: Address, gasPrice: bigint): Promise<Buffer> {
    if (this.current === null || this.gasPrice !== gasPrice) {
      this.gasPrice = gasPrice
      const built = probeTemplate({ ...this.input, gasPrice })
      this.current = built
      built.catch(() => {
        if (this.current === built) this.current = null
      })
    }
    const t = await this.current
    this.id = this.id >= Number.MAX_SAFE_INTEGER ? 1 : this.id + 1
    return probeBodyBytes(t, token, this.id)
  }
}
