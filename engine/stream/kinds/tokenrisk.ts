/**
 * @module
 * `tokenrisk:<chain>` (bsc, avax): verdict changes of the chain's watched tokens, one update per change as
 * the re-check records it (engine/nodeintel/recheck.ts): the token, what changed, the verdicts before and
 * after and the trigger, the fields of the TOKEN_RISK_CHANGED webhook event. Fed by node intelligence
 * (StreamSources `tokenRisk`); with no node for the chain the channel stays quiet. The snapshot is the newest
 * SNAPSHOT_CHANGES changes.
 */
import { nodeIntelPathList } from '../../../catalog/chains.js'
import { NODE_INTEL_CHAINS, type NodeIntelChain } from '../../chain/chains.js'
import type { TokenRiskChange } from '../../nodeintel/recheck.js'
import { arity, ChannelError } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'

/** Changes a snapshot carries at most, newest first. */
export const SNAPSHOT_CHANGES = 20

export interface TokenRiskSpec {
  readonly type: 'tokenrisk'
  readonly name: string
  readonly chain: NodeIntelChain
}

type TokenRiskChannel = Channel<TokenRiskSpec, null>

/** A change as the channel sends it (who gets webhooks is not the subscriber's business). */
export function tokenRiskFrame(c: TokenRiskChange): unknown {
  return { chain: c.chain, token: c.token, changed: c.changed, before: c.before, after: c.after, trigger: c.trigger }
}

class TokenRiskChannels implements KindRuntime<TokenRiskSpec, null> {
  constructor(private readonly ctx: KindContext<TokenRiskSpec, null>) {
    ctx.tokenRisk?.subscribe((c) => {
      const ch = ctx.channels.get(`tokenrisk:${c.chain}`)
      if (ch) ctx.publish(ch, [tokenRiskFrame(c)])
    })
  }

  create(): null {
    return null
  }

  snapshot(ch: TokenRiskChannel): unknown {
    return (this.ctx.tokenRisk?.recent(ch.spec.chain, SNAPSHOT_CHANGES) ?? []).map(tokenRiskFrame)
  }
}

export const tokenRiskKind: ChannelKind<TokenRiskSpec, null> = {
  type: 'tokenrisk',
  // verdicts of node intelligence (pro, enterprise), not only the stream feature
  feature: 'nodeintel',
  parse({ raw, parts }) {
    arity(parts, 2, 2, raw, 'tokenrisk:<chain>, e.g. tokenrisk:bsc')
    const chain = parts[1]!.toLowerCase()
    if (!(NODE_INTEL_CHAINS as readonly string[]).includes(chain)) {
      throw new ChannelError('invalid_channel', `${raw}: the chain must be ${nodeIntelPathList('or')}`)
    }
    return { type: 'tokenrisk', name: `tokenrisk:${chain}`, chain: chain as NodeIntelChain }
  },
  base: () => null,
  start: (ctx) => new TokenRiskChannels(ctx)
}
