/**
 * Configuration of the chain sources (ingest/sources/chain/chain-settings.ts through loadConfig): SOURCES
 * names evm:<chain>, solana and chains; a named chain needs its node URL; the per-chain settings default to
 * the chain table and are checked with messages naming the variable.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../server/config.js'

const base = { DATA_DIR: '/tmp/tw-config-test' }

describe('chain source settings', () => {
  it('SOURCES=chains expands to every chain with a node URL, in the table order', () => {
    const c = loadConfig({
      ...base,
      SOURCES: 'sim,chains',
      BSC_RPC_URL: 'http://127.0.0.1:8545',
      AVAX_RPC_URL: 'http://127.0.0.1:9650/ext/bc/C/rpc',
      SOLANA_RPC_URL: 'http://127.0.0.1:8899'
    })
    expect(c.sources).toEqual(['sim', 'evm:bsc', 'evm:avalanche', 'solana'])
  })

  it('a named chain without its URL stops the start naming the variable', () => {
    expect(() => loadConfig({ ...base, SOURCES: 'evm:bsc' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, SOURCES: 'evm:bsc' })).toThrow('SOURCES=evm:bsc needs BSC_RPC_URL')
    expect(() => loadConfig({ ...base, SOURCES: 'solana' })).toThrow('SOURCES=solana needs SOLANA_RPC_URL')
    expect(() => loadConfig({ ...base, SOURCES: 'evm:tron' })).toThrow(/SOURCES must be a comma list/)
  })

  it('defaults come from the chain table; overrides are checked', () => {
    const c = loadConfig({ ...base, SOURCES: 'none', ETHEREUM_CONFIRMATIONS: '20', BSC_START_BLOCK: '123' })
    expect(c.chainSources.evm.ethereum).toMatchObject({ confirmations: 20, maxSpan: 2000, pollMs: 12_000 })
    expect(c.chainSources.evm.avalanche.confirmations).toBe(1)
    expect(c.chainSources.evm.bsc).toMatchObject({ confirmations: 15, startBlock: 123, pollMs: 750 })
    // 1 hour of 12 s blocks
    expect(c.chainSources.evm.ethereum.backfillBlocks).toBe(300)
    expect(c.chainSources.minUsd).toBe(100_000)
    expect(c.chainSources.watchlistDir).toBe(path.resolve('watchlists'))
    expect(() => loadConfig({ ...base, ETHEREUM_CONFIRMATIONS: '0' })).toThrow(
      "ETHEREUM_CONFIRMATIONS must be an integer from 1 to 1000 (got '0')"
    )
    expect(() => loadConfig({ ...base, WHALE_MIN_USD: '-5' })).toThrow(/^WHALE_MIN_USD must be a number/)
    expect(() => loadConfig({ ...base, SOLANA_RPC_URL: 'ftp://x' })).toThrow(/^SOLANA_RPC_URL must use http or https/)
  })

  it('the wrapped native is the catalog one unless <ENV>_WRAPPED_NATIVE (Avalanche: AVAX_ too) names another', () => {
    const d = loadConfig({ ...base }).chainSources.evm
    expect(d.bsc.wrappedNative).toBe('0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c')
    expect(d.avalanche.wrappedNative).toBe('0xb31f66aa3c1e785363f0875a1b74e27b85fd66c7')
    const fork = `0x${'AB'.repeat(20)}`
    const c = loadConfig({ ...base, BSC_WRAPPED_NATIVE: fork, AVAX_WRAPPED_NATIVE: `0x${'12'.repeat(20)}` })
    expect(c.chainSources.evm.bsc.wrappedNative).toBe(fork.toLowerCase())
    expect(c.chainSources.evm.avalanche.wrappedNative).toBe(`0x${'12'.repeat(20)}`)
    expect(c.chainSources.evm.ethereum.wrappedNative).toBe('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2')
    expect(() => loadConfig({ ...base, ETHEREUM_WRAPPED_NATIVE: '0x12' })).toThrow(
      "ETHEREUM_WRAPPED_NATIVE must be a 0x-prefixed 20-byte address (got '0x12')"
    )
  })

  it('backfill write groups: defaults, overrides and limits', () => {
    expect(loadConfig({ ...base }).chainSources.evm.bsc).toMatchObject({ writeEvents: 10_000, writeHoldMs: 5_000 })
    const c = loadConfig({ ...base, CHAIN_WRITE_EVENTS: '1', CHAIN_WRITE_HOLD_MS: '0' })
    expect(c.chainSources.evm.ethereum).toMatchObject({ writeEvents: 1, writeHoldMs: 0 })
    expect(() => loadConfig({ ...base, CHAIN_WRITE_EVENTS: '0' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, CHAIN_WRITE_EVENTS: '0' })).toThrow(
      "CHAIN_WRITE_EVENTS must be an integer from 1 to 1000000 (got '0')"
    )
    expect(() => loadConfig({ ...base, CHAIN_WRITE_HOLD_MS: '-1' })).toThrow(/^CHAIN_WRITE_HOLD_MS must be an integer/)
  })
})
