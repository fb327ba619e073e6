/**
 * A local Solana JSON-RPC node for the solana source's messy-answer tests
 * (test/integration/whales-chain-solana-messy.test.ts): it answers getSlot, getSignaturesForAddress (pages newest first with `limit`, `before` and `until`, per
 * wallet) and getTransaction (jsonParsed, v0) from a list of planned USDC transfers of AMOUNT between two
 * wallets, each transfer answered as planned: null or a JSON-RPC error a number of times first, never
 * (a request held open), or malformed in one way. Signatures and keys are made-up base58-looking texts.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGqPFXCWuBSf4VbVTBbzzmSD'
/** 5,000,000 USDC (6 decimals) */
const AMOUNT = 5_000_000_000_000n
const T0 = Math.floor(Date.now() / 1000) - 3_600

/** a base58-looking text of 88 characters, distinct per `tag` (signatures are only compared, never decoded) */
export const sig = (tag: string): string => `Sig${tag}`.padEnd(88, 'x')
export const key = (tag: string): string => `Key${tag}`.padEnd(44, 'z')

export interface TxPlan {
  readonly signature: string
  readonly slot: number
  /** null answers before the transaction itself */
  nulls: number
  /** JSON-RPC error answers (as for a version the node cannot give) before the transaction itself */
  errors?: number
  /** getTransaction calls for it so far */
  asked?: number
  /** getTransaction for it is never answered */
  readonly hang?: boolean
  /** the receiver, when not the pair's second wallet (that wallet's signature list then leaves it out) */
  readonly to?: string
  readonly shape: 'ok' | 'no-fee' | 'no-err' | 'short-post' | 'empty-amount'
}

/** a USDC transfer of AMOUNT from `from` to `to`, as getTransaction (jsonParsed, v0) answers it */
function transaction(p: TxPlan, from: string, pairTo: string): unknown {
  const to = p.to ?? pairTo
  const meta: Record<string, unknown> = {
    err: null,
    fee: 5000,
    preBalances: [1_000_000_000, 1_000_000_000, 1, 2_039_280, 2_039_280],
    postBalances: [999_995_000, 1_000_000_000, 1, 2_039_280, 2_039_280],
    preTokenBalances: [
      { accountIndex: 3, mint: USDC, owner: from, uiTokenAmount: { amount: String(AMOUNT * 2n), decimals: 6 } },
      { accountIndex: 4, mint: USDC, owner: to, uiTokenAmount: { amount: '0', decimals: 6 } }
    ],
    postTokenBalances: [
      { accountIndex: 3, mint: USDC, owner: from, uiTokenAmount: { amount: String(AMOUNT), decimals: 6 } },
      { accountIndex: 4, mint: USDC, owner: to, uiTokenAmount: { amount: String(AMOUNT), decimals: 6 } }
    ],
    innerInstructions: []
  }
  if (p.shape === 'no-fee') delete meta['fee']
  if (p.shape === 'short-post') meta['postBalances'] = [999_995_000]
  if (p.shape === 'empty-amount')
    (meta['postTokenBalances'] as Array<{ uiTokenAmount: { amount: string } }>)[1]!.uiTokenAmount.amount = ''
  if (p.shape === 'no-err') delete meta['err']
  return {
    slot: p.slot,
    blockTime: T0 + (p.slot % 1_000),
    meta,
    transaction: {
      signatures: [p.signature],
      message: {
        accountKeys: [from, to, TOKEN_PROGRAM, key(`${p.slot}a`), key(`${p.slot}b`)].map((pubkey) => ({ pubkey })),
        instructions: []
      }
    }
  }
}

/**
 * A Solana node holding `plans` (oldest first) of which the newest `visible` are not yet shown: signature pages
 * newest first with `limit`, `before` and `until` as mainnet applies them, per wallet (a transaction is listed
 * for its sender and its receiver); getTransaction with the plan's nulls.
 */
export async function solanaNode(plans: TxPlan[], from: string, to: string) {
  const state = { visible: 0, calls: new Map<string, number>() }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown; method: string; params: unknown[] }
      state.calls.set(body.method, (state.calls.get(body.method) ?? 0) + 1)
      let result: unknown = null
      let error: unknown
      if (body.method === 'getSlot') result = 400_000_000
      else if (body.method === 'getSignaturesForAddress') {
        const o = body.params[1] as { limit: number; before?: string; until?: string }
        // the wallet's own transactions: the sender's all, the pair's second wallet's those it receives
        const wallet = body.params[0]
        const newestFirst = plans
          .slice(0, state.visible)
          .filter((p) => wallet === from || wallet === (p.to ?? to))
          .reverse()
        let at = o.before === undefined ? 0 : newestFirst.findIndex((p) => p.signature === o.before) + 1
        const page: unknown[] = []
        for (; at < newestFirst.length && page.length < o.limit; at++) {
          const p = newestFirst[at]!
          if (p.signature === o.until) break
          page.push({ signature: p.signature, slot: p.slot, err: null, blockTime: T0 + (p.slot % 1_000) })
        }
        result = page
      } else if (body.method === 'getTransaction') {
        const p = plans.find((x) => x.signature === body.params[0])
        if (p !== undefined) p.asked = (p.asked ?? 0) + 1
        if (p?.hang === true) return // never answered: the request stays open
        if (p !== undefined && (p.errors ?? 0) > 0) {
          p.errors!--
          error = { code: -32015, message: 'Transaction version (1) is not supported' }
        } else if (p !== undefined && p.nulls > 0) p.nulls--
        else if (p !== undefined) result = transaction(p, from, to)
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify(
          error === undefined ? { jsonrpc: '2.0', id: body.id, result } : { jsonrpc: '2.0', id: body.id, error }
        )
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections() // a request held open (`hang`) would keep the server from closing
        server.close(() => r())
      })
  }
}
