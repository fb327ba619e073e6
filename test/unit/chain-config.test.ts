/**
 * Chain node configuration (engine/chain/rpc-config.ts, chains.ts): comma lists, the AVAX alias, URL and
 * number validation with messages naming the variable, and the process refusing to start on a bad URL.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../server/config.js'
import { EVM_CHAINS, nodeIntelChain } from '../../engine/chain/chains.js'
import { chainsConfig, rpcUrlsFor, wsUrlFor } from '../../engine/chain/rpc-config.js'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { projectRoot } from '../../engine/paths.js'
import { tmpDir } from '../helpers/tmp-dir.js'

describe('chain table', () => {
  it('has the chain ids and checksummed wrapped natives', () => {
    expect(EVM_CHAINS.bsc.chainId).toBe(56)
    expect(EVM_CHAINS.avalanche.chainId).toBe(43114)
    expect(EVM_CHAINS.bsc.wrappedNative).toBe('0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c')
    expect(EVM_CHAINS.avalanche.wrappedNative).toBe('0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7')
    expect(nodeIntelChain('avax')).toBe('avalanche')
    expect(nodeIntelChain('bsc')).toBe('bsc')
  })
})

describe('rpcUrlsFor / wsUrlFor', () => {
  it('reads a comma list in order, trimming blanks', () => {
    expect(rpcUrlsFor({ BSC_RPC_URL: ' http://a:1 , https://b/x,, ' }, 'bsc')).toEqual(['http://a:1', 'https://b/x'])
    expect(rpcUrlsFor({}, 'bsc')).toEqual([])
    expect(wsUrlFor({ ETHEREUM_WS_URL: 'ws://n:8546' }, 'ethereum')).toBe('ws://n:8546')
    expect(wsUrlFor({}, 'ethereum')).toBeUndefined()
  })

  it('takes AVAX_RPC_URL for avalanche; AVALANCHE_RPC_URL wins when both are set', () => {
    expect(rpcUrlsFor({ AVAX_RPC_URL: 'http://avax:9650/ext/bc/C/rpc' }, 'avalanche')).toEqual([
      'http://avax:9650/ext/bc/C/rpc'
    ])
    expect(rpcUrlsFor({ AVAX_RPC_URL: 'http://alias:1', AVALANCHE_RPC_URL: 'http://own:2' }, 'avalanche')).toEqual([
      'http://own:2'
    ])
    expect(chainsConfig({ AVAX_RPC_URL: 'http://alias:1' }).avalanche?.urlVariable).toBe('AVAX_RPC_URL')
  })

  it('refuses malformed values naming the variable', () => {
    expect(() => rpcUrlsFor({ BSC_RPC_URL: 'http://ok:1,not a url' }, 'bsc')).toThrow(/BSC_RPC_URL/)
    expect(() => rpcUrlsFor({ AVAX_RPC_URL: 'ws://x:1' }, 'avalanche')).toThrow(/AVAX_RPC_URL must use http or https/)
    expect(() => wsUrlFor({ BASE_WS_URL: 'http://x:1' }, 'base')).toThrow(/BASE_WS_URL must use ws or wss/)
    expect(() => loadConfig({ POLYGON_RPC_URL: 'http://p:1', POLYGON_RPC_RATE: 'fast' })).toThrow(ConfigError)
    expect(() => loadConfig({ POLYGON_RPC_URL: 'http://p:1', POLYGON_RPC_RATE: 'fast' })).toThrow(/POLYGON_RPC_RATE/)
  })

  it('builds one client per configured chain with its rate and timeout', () => {
    const cfg = loadConfig({ BSC_RPC_URL: 'http://a:1,http://b:2', BSC_RPC_RATE: '7', BSC_RPC_TIMEOUT_MS: '900' })
    const clients = new ChainClients(cfg.chains)
    expect(clients.configured()).toEqual(['bsc'])
    expect(clients.get('avalanche')).toBeUndefined()
    const bsc = clients.get('bsc')!
    expect(bsc.urls).toEqual(['http://a:1', 'http://b:2'])
    expect(bsc.ratePerSec).toBe(7)
    expect(bsc.timeoutMs).toBe(900)
    expect(ChainClients.fromEnv({ ARBITRUM_RPC_URL: 'http://arb:1' }).configured()).toEqual(['arbitrum'])
  })

  it('the server exits 2 with one line naming a bad RPC variable', () => {
    const tmp = tmpDir()
    try {
      const res = spawnSync(process.execPath, [path.join(projectRoot(), 'dist/server/main.js')], {
        env: { ...process.env, DATA_DIR: tmp.dir, SOURCES: 'none', PORT: '0', BSC_RPC_URL: 'nonsense' },
        encoding: 'utf8',
        timeout: 30_000
      })
      expect(res.status).toBe(2)
      expect(res.stderr.trim().split('\n')).toHaveLength(1)
      expect(res.stderr).toMatch(/BSC_RPC_URL/)
    } finally {
      tmp.cleanup()
    }
  })
})
