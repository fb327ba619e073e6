/**
 * The EVM test harness lives in bench/node/evm/uniswap.ts (compiled with the benchmarks, which run the same
 * fixtures against anvil); tests import it from here.
 */
export * from '../../../bench/node/evm/uniswap.js'
