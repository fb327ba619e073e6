/**
 * The honeypot check's hot path gives what viem gives:
 * - the pre-serialized probe body (engine/nodeintel/probe-body.ts, text and bytes) is byte for byte the body viem's http
 *   transport sends for the same call (captured on the wire by a local HTTP server), for generated tokens,
 *   gas prices, routers and amounts;
 * - the fixed-layout decoder (engine/nodeintel/probe-decode.ts) decodes generated probe results exactly as
 *   viem's ABI decoder does, and on mutated data either answers what viem answers or declines (then
 *   decodeProbe is viem's answer, or viem's error);
 * - ChainClient.post (engine/chain/raw-rpc.ts) classifies answers as viem's transport does: a JSON-RPC
 *   error (even under HTTP 500) is the node's answer, a plain HTTP error or non-JSON body is a transport
 *   failure (503 chain_unavailable naming the chain).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  createPublicClient,
  encodeAbiParameters,
  encodeErrorResult,
  getAddress,
  http as viemHttp,
  type Hex
} from 'viem'
import { ChainClient } from '../../engine/chain/chain-client.js'
import { MAX_ANSWER_BYTES } from '../../engine/chain/raw-rpc.js'
import { ApiError } from '../../engine/errors.js'
import { PROBE_ABI } from '../../engine/nodeintel/probe-artifact.js'
import { probeError } from '../../engine/nodeintel/honeypot.js'
import { probeBodyBytes, probeTemplate } from '../../engine/nodeintel/probe-body.js'
import { decodeProbeFast } from '../../engine/nodeintel/probe-decode.js'
import { decodeProbe, decodeProbeViem, probeCall, type ProbeResult } from '../../engine/nodeintel/probe.js'

/** A JSON-RPC endpoint that records each body and answers with `answer(body)`. */
let server: http.Server
let url: string
const bodies: string[] = []
let answer: (body: string) => { status: number; text: string } = (b) => ({
  status: 200,
  text: JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(b) as { id: number }).id, result: '0x' })
})
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8')
      bodies.push(body)
      const a = answer(body)
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.text)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((r) => server.close(r))
})

const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((b) => getAddress(`0x${Buffer.from(b).toString('hex')}`))
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })

describe('pre-serialized probe body', () => {
  it('is the body viem sends on the wire for the same call, byte for byte', async () => {
    const viem = createPublicClient({ transport: viemHttp(url, { batch: false, retryCount: 0 }) })
    await fc.assert(
      fc.asyncProperty(
        address,
        address,
        address,
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        async (router, wrappedNative, token, maxIn, gasPrice) => {
          bodies.length = 0
          await viem.call(probeCall({ router, wrappedNative, token, maxIn, gasPrice }))
          const sent = bodies[0]!
          const id = (JSON.parse(sent) as { id: number }).id
          const t = await probeTemplate({ router, wrappedNative, maxIn, gasPrice })
          expect(probeBodyBytes(t, token, id).toString('latin1')).toBe(sent)
        }
      ),
      { numRuns: 40 }
    )
  })
})

const step = fc.record({
  ok: fc.boolean(),
  expected: uint256,
  received: uint256,
  gasUsed: uint256,
  err: fc.uint8Array({ maxLength: 300 }).map((b): Hex => `0x${Buffer.from(b).toString('hex')}`)
})
const result: fc.Arbitrary<ProbeResult> = fc.record({
  blockNumber: uint256,
  codeSize: uint256,
  decimals: uint256,
  pair: address,
  reserveBase: uint256,
  reserveToken: uint256,
  amountIn: uint256,
  buy: step,
  approveOk: fc.boolean(),
  sellAllOk: fc.boolean(),
  sell: step,
  sellSent: uint256,
  pairReceived: uint256,
  xfer: step
})
const outputs = PROBE_ABI.find((x) => x.type === 'function' && x.name === 'probe')!.outputs
const encode = (r: ProbeResult): Hex => encodeAbiParameters(outputs, [r] as never)

describe('fixed-layout probe decoder', () => {
  it('decodes generated results exactly as viem does', () => {
    fc.assert(
      fc.property(result, (r) => {
        const data = encode(r)
        const fast = decodeProbeFast(data)
        expect(fast).not.toBeNull()
        expect(fast).toStrictEqual(decodeProbeViem(data))
        expect(fast).toEqual(r) // (generated records may have a null prototype)
        expect(decodeProbeFast(data.toUpperCase().replace('0X', '0x'))).toStrictEqual(fast)
      }),
      { numRuns: 300 }
    )
  })

  it('on mutated data answers what viem answers, or declines', () => {
    const mutation = fc.oneof(
      // one hex digit changed anywhere
      fc.record({ kind: fc.constant('digit' as const), at: fc.nat(), digit: fc.constantFrom(...'0123456789abcdefg') }),
      // cut or extended by whole words or single digits
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('append' as const),
        tail: fc.constantFrom('00', '0'.repeat(64), `${'0'.repeat(63)}1`)
      })
    )
    fc.assert(
      fc.property(result, mutation, (r, m) => {
        const clean = encode(r)
        let data: string
        if (m.kind === 'digit') {
          const i = 2 + (m.at % (clean.length - 2))
          data = clean.slice(0, i) + m.digit + clean.slice(i + 1)
        } else if (m.kind === 'cut') {
          data = clean.slice(0, 2 + (m.at % (clean.length - 2)))
        } else data = clean + m.tail
        const fast = decodeProbeFast(data)
        let viem: ProbeResult | Error
        try {
          viem = decodeProbeViem(data as Hex)
        } catch (err) {
          viem = err as Error
        }
        if (fast !== null) expect(fast).toStrictEqual(viem)
        // decodeProbe is the fast answer where there is one, else viem's (value or the same error)
        if (data === '0x')
          expect(decodeProbe(data)).toBeNull() // no data: a node that ignored the override
        else if (viem instanceof Error) expect(() => decodeProbe(data as Hex)).toThrow(viem.constructor as never)
        else expect(decodeProbe(data as Hex)).toStrictEqual(viem)
      }),
      { numRuns: 1000 }
    )
  })

  it('declines layouts the probe never writes (an offset that is not 32, a bool of 2)', () => {
    const data = encode(fc.sample(result, { numRuns: 1, seed: 7 })[0]!)
    expect(decodeProbeFast(`0x${'0'.repeat(62)}40${data.slice(66)}`)).toBeNull()
    const bool2 = `0x${data.slice(2, 2 + 64 * 9)}${'0'.repeat(63)}2${data.slice(2 + 64 * 10)}`
    expect(decodeProbeFast(bool2)).toBeNull()
    expect(() => decodeProbe(bool2 as Hex)).toThrow()
  })
})

describe('probeError: the reason of a JSON-RPC error answer to the probe', () => {
  const revert = encodeErrorResult({
    abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
    errorName: 'Error',
    args: ['TRANSFER_FROM_FAILED']
  })

  it('decodes revert data at the top or nested under data.data; else the message', () => {
    expect(probeError({ code: 3, message: 'execution reverted', data: revert })).toBe('TRANSFER_FROM_FAILED')
    expect(probeError({ code: -32000, message: 'execution reverted', data: { data: revert } })).toBe(
      'TRANSFER_FROM_FAILED'
    )
    expect(probeError({ code: 3, message: 'execution reverted', data: '0x' })).toBe('reverted without a reason')
    expect(probeError({ code: -32602, message: 'state overrides not supported' })).toBe('state overrides not supported')
    expect(probeError({ code: -32602, message: 'no', data: 'not hex' })).toBe('no')
  })
})

describe('ChainClient.post', () => {
  const client = (): ChainClient => new ChainClient({ chain: 'bsc', urls: [url], timeoutMs: 2000 })
  const body = '{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[]}'

  it('returns the node answer, result or JSON-RPC error (also under HTTP 500), without failing over', async () => {
    const c = client()
    answer = () => ({ status: 200, text: '{"jsonrpc":"2.0","id":1,"result":"0x2a"}' })
    expect(await c.post('t', body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x2a' })
    answer = () => ({ status: 500, text: '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no overrides"}}' })
    expect(await c.post('t', body)).toMatchObject({ error: { code: -32602 } })
    expect(c.stats()).toMatchObject({ calls: 2, errors: 0, failovers: 0 })
    expect(bodies.at(-1)).toBe(body)
  })

  it('an HTTP error without a JSON-RPC error, or a body that is not JSON, is the transport failing: 503 naming the chain', async () => {
    const c = client()
    for (const a of [
      { status: 502, text: 'bad gateway' },
      { status: 200, text: 'not json' }
    ]) {
      answer = () => a
      const err = await c.post('honeypot_probe', body).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ApiError)
      expect(err).toMatchObject({ code: 'chain_unavailable' })
      expect((err as Error).message).toContain('bsc')
    }
  })

  it('an answer beyond MAX_ANSWER_BYTES is refused as a transport failure (as viem limits answers)', async () => {
    const c = client()
    answer = () => ({ status: 200, text: `{"result":"0x${'0'.repeat(MAX_ANSWER_BYTES)}"}` })
    await expect(c.post('honeypot_probe', body)).rejects.toMatchObject({ code: 'chain_unavailable' })
    answer = () => ({ status: 200, text: '{"jsonrpc":"2.0","id":1,"result":"0x2a"}' })
    expect(await c.post('t', body)).toMatchObject({ result: '0x2a' }) // and the client still works
  })

  it('fails over like request(): a refused first node, the second answers', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: ['http://127.0.0.1:9', url], timeoutMs: 2000 })
    answer = () => ({ status: 200, text: '{"jsonrpc":"2.0","id":1,"result":"0x2a"}' })
    expect(await c.post('t', body)).toMatchObject({ result: '0x2a' })
    expect(c.stats()).toMatchObject({ calls: 1, failovers: 1, errors: 0 })
  })

  it('a refused connection is 503 chain_unavailable', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: ['http://127.0.0.1:9'], timeoutMs: 2000 })
    await expect(c.post('honeypot_probe', body)).rejects.toMatchObject({ code: 'chain_unavailable' })
  })
})
