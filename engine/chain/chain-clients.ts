/**
 * @module
 * One `ChainClient` per configured chain, built once at start from `config.chains` (or from the
 * environment) and put on the server context (`ctx.chains`): the whale sources and node intelligence take
 * their client from here, so a chain's node is shared along with its rate limit and counters.
 */
import { ChainClient } from './chain-client.js'
import type { ChainClientSet } from './chain-client-set.js'
import { EVM_CHAIN_NAMES, type EvmChainName } from './chains.js'
import { chainsConfig, type ChainsConfig } from './rpc-config.js'

export class ChainClients implements ChainClientSet {
  private readonly clients = new Map<EvmChainName, ChainClient>()
  readonly config: ChainsConfig

  constructor(config: ChainsConfig) {
    this.config = config
    for (const chain of EVM_CHAIN_NAMES) {
      const c = config[chain]
      if (!c) continue
      this.clients.set(
        chain,
        new ChainClient({
          chain,
          urls: c.urls,
          urlVariable: c.urlVariable,
          ratePerSec: c.ratePerSec,
          timeoutMs: c.timeoutMs,
          ...(c.wsUrl === undefined ? {} : { wsUrl: c.wsUrl })
        })
      )
    }
  }

  /** Reads `<ENV>_RPC_URL` and friends (engine/chain/rpc-config.ts); throws ConfigError naming a bad variable. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): ChainClients {
    return new ChainClients(chainsConfig(env))
  }

  /** the chain's client, or undefined when no `<ENV>_RPC_URL` is set */
  get(chain: EvmChainName): ChainClient | undefined {
    return this.clients.get(chain)
  }

  /** chains with a node, in the order of engine/chain/chains.ts */
  configured(): EvmChainName[] {
    return [...this.clients.keys()]
  }

  /**
   * The server's shutdown step for the chain nodes (after the sources stopped): the lean clients' kept-alive
   * connections (viem's http transport sends through the process's shared fetch pool).
   */
  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()))
  }
}
