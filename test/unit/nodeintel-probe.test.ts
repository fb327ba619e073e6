/**
 * The honeypot probe's call and answer through viem:
 * - decodeProbe (viem's decodeFunctionResult with the probe ABI) gives every field of generated probe
 *   results, and throws viem's error on data that is not one;
 * - runProbe reads what the node answered as the server reports it: a result's data, the node's own JSON-RPC
 *   error object (also under HTTP 500) for probeError, and a plain HTTP error or non-JSON body as the
 *   transport failing (503 chain_unavailable naming the chain, through ChainClient.request);
 * - probeError: the reason read from that error object.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { encodeAbiParameters, encodeErrorResult, getAddress, type Hex } from 'viem'
import { ChainClient } from '../../engine/chain/chain-client.js'
import { ApiError } from '../../engine/errors.js'
import { PROBE_ABI, PROBE_RUNTIME } from '../../engine/nodeintel/probe-artifact.js'
import { probeError, runProbe } from '../../engine/nodeintel/honeypot-probe.js'
import { decodeProbe, probeCall, PROBE_ADDRESS, type ProbeResult } from '../../engine/nodeintel/probe.js'

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

describe('decodeProbe', () => {
  it('gives every field of generated probe results', () => {
    fc.assert(
      fc.property(result, (r) => {
        expect(decodeProbe(encode(r))).toEqual(r) // (generated records may have a null prototype)
      }),
      { numRuns: 200 }
    )
  })

  it('is null without data (a node that ignored the override) and throws on data that is not a result', () => {
    expect(decodeProbe(undefined)).toBeNull()
    expect(decodeProbe('0x')).toBeNull()
    const data = encode(fc.sample(result, { numRuns: 1, seed: 7 })[0]!)
    expect(() => decodeProbe(data.slice(0, 200) as Hex)).toThrow()
    const bool2 = `0x${data.slice(2, 2 + 64 * 9)}${'0'.repeat(63)}2${data.slice(2 + 64 * 10)}` as Hex
    expect(() => decodeProbe(bool2)).toThrow()
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

describe('runProbe through ChainClient.request', () => {
  const client = (): ChainClient => new ChainClient({ chain: 'bsc', urls: [url], timeoutMs: 2000 })
  const token = getAddress(`0x${'ab'.repeat(20)}`)
  const call = probeCall({ router: token, wrappedNative: token, token, maxIn: 10n ** 18n, gasPrice: 3n * 10n ** 9n })
  const run = (c: ChainClient): ReturnType<typeof runProbe> =>
    c.request('honeypot_probe', (p) => runProbe(p, call), { batch: false })
  const rpcError = { code: 3, message: 'execution reverted', data: '0x08c379a0' }

  it('sends one unbatched eth_call with the probe code injected, and returns its data (0x: none)', async () => {
    const c = client()
    bodies.length = 0
    answer = (b) => ({ status: 200, text: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(b).id, result: '0x2a' }) })
    expect(await run(c)).toEqual({ data: '0x2a' })
    expect(bodies).toHaveLength(1)
    const sent = JSON.parse(bodies[0]!) as {
      method: string
      params: [{ to: string }, string, Record<string, { code: string }>]
    }
    expect(sent.method).toBe('eth_call')
    expect(sent.params[0].to).toBe(PROBE_ADDRESS)
    expect(sent.params[2][PROBE_ADDRESS]!.code).toBe(PROBE_RUNTIME)
    answer = (b) => ({ status: 200, text: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(b).id, result: '0x' }) })
    expect(await run(c)).toEqual({ data: undefined })
  })

  it('a JSON-RPC error answer (also under HTTP 500) is the error object the node sent, sent once, not an RPC error count', async () => {
    const c = client()
    for (const status of [200, 500]) {
      bodies.length = 0
      answer = (b) => ({ status, text: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(b).id, error: rpcError }) })
      expect(await run(c)).toEqual({ error: rpcError })
      expect(bodies).toHaveLength(1)
    }
    expect(c.stats()).toMatchObject({ calls: 2, errors: 0, rpc_errors: 0, failovers: 0 })
  })

  it('an HTTP error without a JSON-RPC error, or a body that is not JSON, is the transport failing: 503 naming the chain', async () => {
    const c = client()
    for (const a of [
      { status: 502, text: 'bad gateway' },
      { status: 200, text: 'not json' }
    ]) {
      answer = () => a
      const err = await run(c).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ApiError)
      expect(err).toMatchObject({ code: 'chain_unavailable' })
      expect((err as Error).message).toContain('bsc')
    }
  })

  it('fails over: a refused first node, the second answers', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: ['http://127.0.0.1:9', url], timeoutMs: 2000 })
    answer = (b) => ({ status: 200, text: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(b).id, result: '0x2a' }) })
    expect(await run(c)).toEqual({ data: '0x2a' })
    expect(c.stats()).toMatchObject({ calls: 1, failovers: 1, errors: 0 })
  })
})
