/**
 * @module
 * `newpairs:<chain>` (bsc, avax): new pairs of the chain's DEX factory, one update per pair when its
 * honeypot verdict is known (engine/nodeintel/new-pairs.ts), carrying the fields of
 * GET /v1/node/{chain}/new-pairs. Fed by node intelligence (StreamSources `newPairs`), not by live records;
 * with no node for the chain the channel stays quiet. The snapshot is the newest SNAPSHOT_PAIRS pairs.
 */
import { nodeIntelPathList } from '../../../catalog/chains.js'
import { NODE_INTEL_CHAINS, type NodeIntelChain } from '../../chain/chains.js'
import type { NewPair } from '../../nodeintel/new-pairs.js'
import { arity, ChannelError } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'

/** Pairs a snapshot carries at most, newest first. */
export const SNAPSHOT_PAIRS = 20

export interface NewPairsSpec {
  readonly type: 'newpairs'
  readonly name: string
  readonly chain: NodeIntelChain
}

type NewPairsChannel = Channel<NewPairsSpec, null>

class NewPairsChannels implements KindRuntime<NewPairsSpec, null> {
  constructor(private readonly ctx: KindContext<NewPairsSpec, null>) {
    ctx.newPairs?.subscribe((p) => {
      const ch = ctx.channels.get(`newpairs:${p.chain}`)
      if (ch) ctx.publish(ch, [{ ...p }])
    })
  }

  create(): null {
    return null
  }

  snapshot(ch: NewPairsChannel): unknown {
    return (this.ctx.newPairs?.recent(ch.spec.chain, SNAPSHOT_PAIRS) ?? []).map((p) => ({ ...p }))
  }
}

export const newPairsKind: ChannelKind<NewPairsSpec, null> = {
  type: 'newpairs',
  // the pairs carry honeypot verdicts: node intelligence (pro, enterprise), not only the stream feature
  feature: 'nodeintel',
  parse({ raw, parts }) {
    arity(parts, 2, 2, raw, 'newpairs:<chain>, e.g. newpairs:bsc')
    const chain = parts[1]!.toLowerCase()
    if (!(NODE_INTEL_CHAINS as readonly string[]).includes(chain)) {
      throw new ChannelError('invalid_channel', `${raw}: the chain must be ${nodeIntelPathList('or')}`)
    }
    return { type: 'newpairs', name: `newpairs:${chain}`, chain: chain as NodeIntelChain }
  },
  base: () => null,
  start: (ctx) => new NewPairsChannels(ctx)
}
