/**
 * @module
 * A Solana wallet's new signatures (solana-source.ts): `getSignaturesForAddress`, newest first, in pages of
 * `SOLANA_SIGNATURES_LIMIT`, `until` the checkpoint and paged back with `before` until the page reaches it.
 */
import type { SolanaRpc } from './solana-rpc.js'

/** signatures held per wallet and poll (~200 bytes each): the oldest ones after the checkpoint when more wait */
export const MAX_NEW_SIGNATURES = 100_000

/** One entry of a getSignaturesForAddress page. */
export interface Signature {
  readonly signature: string
  readonly slot: number
  readonly err: unknown
  /** epoch seconds, or null/absent when the node does not know it */
  readonly blockTime?: number | null
}

/**
 * One page of `wallet`'s signatures, newest first. A page that is not a list of signatures is an RPC error
 * (thrown: the source retries with its backoff). Leaving a bad entry out instead would make a full page look
 * short and end the paging early, and the checkpoint would then move past the signatures never read.
 */
async function signaturePage(
  rpc: SolanaRpc,
  limit: number,
  wallet: string,
  until: string | null,
  before: string | null
): Promise<Signature[]> {
  const opts: Record<string, unknown> = { limit, commitment: 'finalized' }
  if (until !== null) opts['until'] = until
  if (before !== null) opts['before'] = before
  const page = await rpc.call<unknown>('getSignaturesForAddress', [wallet, opts])
  const ok =
    Array.isArray(page) &&
    page.every((x) => typeof x === 'object' && x !== null && typeof (x as Signature).signature === 'string')
  if (!ok) {
    rpc.errors += 1
    throw new Error('getSignaturesForAddress: the answer is not a list of signatures')
  }
  return page as Signature[]
}

/**
 * Signatures of `wallet` after `until`, oldest first. With a checkpoint, every page back to it (`before` the
 * oldest signature of the page before), keeping the oldest MAX_NEW_SIGNATURES when more wait (the next polls
 * read the rest: the checkpoint moves up to the newest one kept); without one, the newest page.
 */
export async function newSignatures(
  rpc: SolanaRpc,
  limit: number,
  wallet: string,
  until: string | null
): Promise<Signature[]> {
  let newestFirst: Signature[] = []
  let before: string | null = null
  for (;;) {
    const page = await signaturePage(rpc, limit, wallet, until, before)
    for (const sig of page) newestFirst.push(sig)
    // keep the oldest: the newest beyond the bound wait for a later poll
    if (newestFirst.length > MAX_NEW_SIGNATURES) newestFirst = newestFirst.slice(-MAX_NEW_SIGNATURES)
    if (until === null || page.length < limit || page.length === 0) break
    const oldest = page[page.length - 1]!.signature
    if (oldest === before) {
      // a node that ignores `before` answers the same page again: the signatures between it and the
      // checkpoint cannot be read, and moving on would skip them
      rpc.errors += 1
      throw new Error('getSignaturesForAddress: the node ignores `before` (the same page twice)')
    }
    before = oldest
  }
  return newestFirst.reverse()
}
