/**
 * @module
 * The probe contract's side of the honeypot check (engine/nodeintel/honeypot.ts): its eth_call, unbatched
 * (engine/nodeintel/probe.ts builds and decodes it), the constructor probe asked after a step the contract
 * probe failed, and a node's JSON-RPC error answer read as a reason (its revert data decoded, else its message).
 */
import { RpcRequestError, type Address, type Hex, type PublicClient } from 'viem'
import { errorText, isTransportError } from '../chain/rpc-errors.js'
import { decodeProbe, probeCall, probeInitCall, type ProbeResult } from './probe.js'
import { revertReason } from './revert-reason.js'
import type { HoneypotDeps } from './honeypot-report.js'

export type ProbeAnswer = { data: Hex | undefined } | { error: unknown }

/**
 * The probe's eth_call alone, unbatched (latency): its data, or the node's own error (transport errors throw).
 * `init`: the constructor probe.
 */
export function probe(d: HoneypotDeps, token: Address, gasPrice: bigint, init = false): Promise<ProbeAnswer> {
  const input = { router: d.dex.router, wrappedNative: d.dex.wrappedNative, token, maxIn: d.maxIn, gasPrice }
  const call = init ? probeInitCall(input) : probeCall(input)
  return d.client.request(init ? 'honeypot_probe_init' : 'honeypot_probe', (c) => runProbe(c, call), { batch: false })
}

const bought = (r: ProbeResult): boolean => r.buy.ok && r.buy.received > 0n
const sold = (r: ProbeResult): boolean => r.sell.ok && r.sell.received > 0n

/**
 * The constructor probe's result when it passed a step the probe contract failed (the token refuses
 * addresses with code), else null. Asked only after such a failure: one more eth_call.
 */
export async function constructorRetry(
  d: HoneypotDeps,
  token: Address,
  gasPrice: bigint,
  contract: ProbeResult
): Promise<ProbeResult | null> {
  const liquid = !/^0x0{40}$/i.test(contract.pair) && contract.amountIn > 0n
  const refused = !bought(contract) || !contract.approveOk || !sold(contract) || !contract.xfer.ok
  if (!liquid || !refused) return null
  const res = await probe(d, token, gasPrice, true)
  let init: ProbeResult | null = null
  try {
    init = 'data' in res ? decodeProbe(res.data) : null
  } catch {
    return null
  }
  if (!init) return null
  const better =
    (bought(init) && !bought(contract)) ||
    (bought(contract) && sold(init) && !sold(contract)) ||
    (bought(contract) && init.xfer.ok && !contract.xfer.ok)
  // the constructor cannot try (and undo) selling everything: the probe contract's answer stands for it
  return better ? { ...init, sellAllOk: sold(contract) ? contract.sellAllOk : true } : null
}

/**
 * viem's `call` of the probe: its data (`0x` reads as none), or the node's JSON-RPC error object as the node
 * sent it (the cause of viem's `RpcRequestError`); transport errors throw. Errors are caught here, inside
 * the client's request, so a node's refusal is the caller's to judge and not counted as an RPC error.
 */
export function runProbe(c: PublicClient, call: Parameters<PublicClient['call']>[0]): Promise<ProbeAnswer> {
  return c.call(call).then(
    (r) => ({ data: r.data }),
    (err: unknown) => {
      if (isTransportError(err)) throw err
      const rpc =
        err instanceof RpcRequestError
          ? err
          : (err as { walk?: (f: (e: unknown) => boolean) => unknown }).walk?.((e) => e instanceof RpcRequestError)
      return { error: rpc instanceof RpcRequestError ? rpc.cause : { message: errorText(err) } }
    }
  )
}

/** viem's error of a failed simulation as the node's own error object, as runProbe reads it. */
export function rpcCause(err: unknown): unknown {
  const rpc =
    err instanceof RpcRequestError
      ? err
      : (err as { walk?: (f: (e: unknown) => boolean) => unknown } | null)?.walk?.((e) => e instanceof RpcRequestError)
  return rpc instanceof RpcRequestError ? rpc.cause : { message: errorText(err) }
}

/**
 * A JSON-RPC error object's reason: the decoded revert data when it carries some (`data` as 0x-hex, or nested
 * under `data.data` as some nodes send it, as viem's error walk finds it), else its message.
 */
export function probeError(err: unknown): string {
  let data = (err as { data?: unknown } | null)?.data
  for (let depth = 0; depth < 3 && data !== null && typeof data === 'object'; depth++) {
    data = (data as { data?: unknown }).data
  }
  if (typeof data === 'string' && data.startsWith('0x')) return revertReason(data as Hex)
  const message = (err as { message?: unknown } | null)?.message
  return typeof message === 'string' ? message : errorText(err)
}
