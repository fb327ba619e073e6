/**
 * The bytecode scan on compiled tokens deployed to anvil (chain id 56), read back with eth_getCode through
 * the token-risk route: constants holding the bytes of DELEGATECALL / CALLCODE / SELFDESTRUCT (event topics,
 * masks, a long bytes constant the compiler stores after the code, a UTF-8 string) give no factor, while
 * tokens that really use those opcodes keep theirs; launch-template owner functions are named by group, in
 * the risk factors and, on a node that refuses state overrides (no simulation), in the honeypot reasons.
 * Fixtures: test/fixtures/evm/bytecode (npm solc 0.8.37, optimizer on).
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEther, type Address } from 'viem'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { silentLogger } from '../../engine/log.js'
import { nodeIntelConfig } from '../../engine/nodeintel/config.js'
import { projectRoot } from '../../engine/paths.js'
import { Supervisor } from '../../engine/runtime/supervisor.js'
import { NodeIntelModule } from '../../server/modules/node-intel.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { compileDir, type Compiled } from '../helpers/evm/solc.js'
import { addLiquidityEth, deployContract, deployUniswapV2, type UniswapV2 } from '../helpers/evm/uniswap.js'
import { startOverrideRefusingProxy, type RpcProxy } from '../helpers/evm/rpc-proxy.js'
import { jsonOf, routeApp, type RouteApp } from '../helpers/route-app.js'

let anvil: Anvil
let uni: UniswapV2
let compiled: Compiled
let app: RouteApp
let key: string
let proxy: RpcProxy
/** the same routes over `proxy`: a node that refuses state overrides and eth_simulateV1 */
let refusingApp: RouteApp
let tokens: {
  readonly constants: Address
  readonly delegating: Address
  readonly selfDestruct: Address
  readonly launch: Address
  readonly mintCaller: Address
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56 })
  uni = await deployUniswapV2(anvil.url, { wrappedNative: EVM_CHAINS.bsc.wrappedNative })
  compiled = compileDir(path.join(projectRoot(), 'test/fixtures/evm/bytecode'))
  const deploy = (name: string, args: readonly unknown[] = []): Promise<Address> =>
    deployContract(uni, compiled[name]!.abi, compiled[name]!.bytecode, args)
  const constants = await deploy('ConstantsToken', ['Constants', 'CONST', parseEther('10000000')])
  await addLiquidityEth(uni, constants, parseEther('1000000'), parseEther('100'), {
    tokenAbi: compiled.ConstantsToken!.abi
  })
  tokens = {
    constants,
    delegating: await deploy('DelegatingToken'),
    selfDestruct: await deploy('SelfDestructToken'),
    launch: await deploy('LaunchToken'),
    mintCaller: await deploy('MintCaller')
  }
  proxy = await startOverrideRefusingProxy(anvil.url)
  const appOver = (url: string): RouteApp => {
    const env = { BSC_RPC_URL: url, BSC_RPC_RATE: '10000', BSC_DEX_ROUTER: uni.router, BSC_DEX_FACTORY: uni.factory }
    const wiring = new NodeIntelModule(
      nodeIntelConfig(env),
      ChainClients.fromEnv(env),
      silentLogger(),
      new Supervisor(silentLogger())
    )
    return routeApp(wiring.routes())
  }
  app = appOver(anvil.url)
  key = await app.key('pro')
  refusingApp = appOver(proxy.url)
})
afterAll(async () => {
  await proxy?.close()
  await anvil?.stop()
})

interface Factor {
  readonly id: string
  readonly weight: number
  readonly evidence: string
}

async function factors(token: Address): Promise<Factor[]> {
  const res = await app.request(`/v1/node/bsc/token-risk/${token}`, { key })
  const body = jsonOf(res) as { factors: Factor[] }
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body.factors
}
const ids = (fs: readonly Factor[]): string[] => fs.map((f) => f.id)
const evidence = (fs: readonly Factor[], id: string): string => fs.find((f) => f.id === id)?.evidence ?? ''

describe('bytecode scan on deployed tokens (anvil)', () => {
  it('the deployed code of the constants token holds 0xf4 / 0xf2 / 0xff bytes and data after the code', async () => {
    // the fixture is only a test of the rule if the bytes are there: in PUSH32 data and after the 0xfe boundary
    const code = (await uni.publicClient.getCode({ address: tokens.constants }))!.toLowerCase()
    expect(code).toContain('7fddf252ad') // PUSH32 of the Transfer topic (0xf2 at its byte 2)
    expect(code).toContain('7ff4fff2f4') // PUSH32 of the made-up topic
    expect(code).toContain('56fe638a8c523c14f4ff5b') // JUMP, INVALID, then the banner: PUSH4 enableTrading() EQ ...
  })

  it('constants with opcode bytes give no delegatecall / selfdestruct / owner-power factor', async () => {
    const f = await factors(tokens.constants)
    expect(ids(f)).not.toContain('delegatecall')
    expect(ids(f)).not.toContain('selfdestruct')
    expect(ids(f)).not.toContain('owner_can_pause') // enableTrading() / openTrading() selectors sit in the data
  })

  it('a token that really delegatecalls or selfdestructs is still flagged', async () => {
    expect(ids(await factors(tokens.delegating))).toContain('delegatecall')
    const sd = await factors(tokens.selfDestruct)
    expect(ids(sd)).toContain('selfdestruct')
    expect(ids(sd)).not.toContain('delegatecall')
  })

  it('launch-template owner functions are named by group, each in its factor', async () => {
    const f = await factors(tokens.launch)
    expect(ids(f)).toEqual(
      expect.arrayContaining([
        'owner_not_renounced',
        'owner_can_blacklist',
        'owner_can_set_fees',
        'owner_can_pause',
        'owner_can_limit_tx',
        'owner_can_switch_contract_transfers'
      ])
    )
    const blacklist = evidence(f, 'owner_can_blacklist')
    for (const sig of ['setBots(address[])', 'delBot(address)']) expect(blacklist).toContain(sig)
    const fees = evidence(f, 'owner_can_set_fees')
    expect(fees).toContain('fee setters: setTaxes(uint256,uint256)')
    expect(fees).toContain('fee exclusion: excludeFromFees(address,bool)')
    const pause = evidence(f, 'owner_can_pause')
    for (const sig of ['openTrading()', 'setTrading(bool)']) expect(pause).toContain(sig)
    const limits = evidence(f, 'owner_can_limit_tx')
    for (const sig of ['updateMaxWalletAmount(uint256)', 'removeLimits()', 'cooldowns: setCooldownEnabled(bool)'])
      expect(limits).toContain(sig)
    const contracts = evidence(f, 'owner_can_switch_contract_transfers')
    for (const sig of ['setTransferDelayEnabled(bool)', 'setSwapAndLiquifyEnabled(bool)'])
      expect(contracts).toContain(sig)
  })

  it('without a simulation (bytecode_only), the reasons name every group the code walk found', async () => {
    const res = await refusingApp.request(`/v1/node/bsc/honeypot/${tokens.launch}`, {
      key: await refusingApp.key('pro')
    })
    const body = jsonOf(res) as { method: string; verdict: string; reasons: string[] }
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body).toMatchObject({ method: 'bytecode_only', verdict: 'unknown' })
    const line = (label: string): string => body.reasons.find((r) => r.startsWith(`${label}: `)) ?? ''
    for (const sig of ['setBots(address[])', 'delBot(address)']) expect(line('blacklist functions')).toContain(sig)
    expect(line('fee setters')).toBe('fee setters: setTaxes(uint256,uint256)')
    expect(line('fee exclusion')).toBe('fee exclusion: excludeFromFees(address,bool)')
    for (const sig of ['updateMaxWalletAmount(uint256)', 'removeLimits()'])
      expect(line('transaction / wallet limits')).toContain(sig)
    expect(line('cooldowns')).toBe('cooldowns: setCooldownEnabled(bool)')
    for (const sig of ['openTrading()', 'setTrading(bool)']) expect(line('trading switches')).toContain(sig)
    for (const sig of ['setTransferDelayEnabled(bool)', 'setSwapAndLiquifyEnabled(bool)'])
      expect(line('contract transfer switches')).toContain(sig)
    expect(line('owner functions')).toContain('owner()')
    // a function the token does not have is not listed
    expect(body.reasons.some((r) => r.startsWith('mint functions'))).toBe(false)
  })

  it('a selector the code only calls on another contract is not one of its functions', async () => {
    expect(ids(await factors(tokens.mintCaller))).not.toContain('owner_can_mint')
  })
})
