/**
 * @module
 * The events of a watched token that trigger a re-check (docs/node-intel.md, "Watch list and re-checks"),
 * by kind: ownership, fee or tax, pause, blacklist. topic0 of each is computed by viem from its signature
 * (`toEventSelector`), never typed in. The names are those of widely deployed contracts: OpenZeppelin's
 * Ownable and Pausable, Tether's USDT (Pause/Unpause, AddedBlackList/RemovedBlackList, Params: its fee
 * setter's event), Circle's FiatToken (Blacklisted/UnBlacklisted), and the fee events of common launch
 * templates. A setter that emits nothing is caught by the owner-transaction trigger instead.
 */
import { toEventSelector, type Hex } from 'viem'

export type TriggerKind = 'ownership' | 'fee' | 'pause' | 'blacklist'

/** Event signatures (canonical types, no names or `indexed`) per kind. */
export const TRIGGER_EVENTS: Readonly<Record<TriggerKind, readonly string[]>> = {
  ownership: ['OwnershipTransferred(address,address)'],
  fee: [
    'Params(uint256,uint256)',
    'FeesUpdated(uint256,uint256)',
    'TaxUpdated(uint256,uint256)',
    'UpdateFees(uint256,uint256)',
    'ExcludeFromFees(address,bool)',
    'MaxTxAmountUpdated(uint256)'
  ],
  pause: ['Paused(address)', 'Unpaused(address)', 'Pause()', 'Unpause()'],
  blacklist: [
    'Blacklisted(address)',
    'UnBlacklisted(address)',
    'AddedBlackList(address)',
    'RemovedBlackList(address)',
    'BlacklistUpdated(address,bool)'
  ]
}

export interface TriggerTopic {
  readonly kind: TriggerKind
  readonly signature: string
  readonly topic0: Hex
}

export const TRIGGER_TOPICS: readonly TriggerTopic[] = (Object.keys(TRIGGER_EVENTS) as TriggerKind[]).flatMap((kind) =>
  TRIGGER_EVENTS[kind].map((signature) => ({ kind, signature, topic0: toEventSelector(`event ${signature}`) }))
)

const BY_TOPIC: ReadonlyMap<string, TriggerTopic> = new Map(TRIGGER_TOPICS.map((t) => [t.topic0.toLowerCase(), t]))

/** The trigger a log's topic0 stands for, or undefined. */
export function triggerOfTopic(topic0: string | undefined): TriggerTopic | undefined {
  return topic0 === undefined ? undefined : BY_TOPIC.get(topic0.toLowerCase())
}
