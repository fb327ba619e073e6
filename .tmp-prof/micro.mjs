import { createPublicClient, http, parseEther } from 'viem'
import { Pool } from 'undici'
const D = '/work/wt/s-honeypot/dist'
const { startAnvil } = await import(`${D}/bench/node/evm/anvil.js`)
const { deployNodeIntelFixtures } = await import(`${D}/bench/node/evm/nodeintel-fixtures.js`)
const { EVM_CHAINS } = await import(`${D}/engine/chain/chains.js`)
const { runWalletSim, walletRequest } = await import(`${D}/engine/nodeintel/wallet-sim.js`)
const { readWalletSim } = await import(`${D}/engine/nodeintel/wallet-read.js`)
const { AnswerReader } = await import(`${D}/bench/node/raw-rpc.js`)
const anvil = await startAnvil({ chainId: 56 })
try {
  const fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
  const viem = createPublicClient({ transport: http(anvil.url, { batch: false, retryCount: 0 }) })
  const gasPrice = await viem.getGasPrice()
  const block = await viem.getBlock({ blockTag: 'latest' })
  const input0 = { router: fx.uni.router, wrappedNative: fx.uni.weth, maxIn: parseEther('1'), gasPrice, token: fx.tokens.clean, head: { number: block.number, timestamp: block.timestamp }, plan: null }
  const r0 = await runWalletSim(viem, input0)
  const plan = readWalletSim(input0, r0.blocks).plan
  const input = { ...input0, plan }
  const pool = new Pool(new URL(anvil.url).origin, { connections: 4 })
  const raw = (body) => new Promise((res, rej) => pool.dispatch({ path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body }, new AnswerReader(res, rej)))
  const N = Number(process.env.N ?? 300)
  async function m(name, fn) {
    for (let i = 0; i < 30; i++) await fn()
    const c0 = process.cpuUsage(); const t0 = performance.now(); const ms = []
    for (let i = 0; i < N; i++) { const t = performance.now(); await fn(); ms.push(performance.now() - t) }
    const c = process.cpuUsage(c0); ms.sort((a, b) => a - b)
    console.log(name.padEnd(28), 'cpu us/op', Math.round((c.user + c.system) / N), 'p50', ms[N >> 1].toFixed(2), 'p99', ms[Math.floor(N * 0.99)].toFixed(2))
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_simulateV1', params: walletRequest(input) })
  console.log('request body bytes', body.length)
  const ans = await raw(body); console.log('answer bytes', ans.text.length)
  await m('walletRequest (encode)', async () => { walletRequest(input) })
  await m('encode+stringify', async () => { JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_simulateV1', params: walletRequest(input) }) })
  await m('raw post prebuilt', async () => { await raw(body) })
  await m('raw post+parse', async () => { JSON.parse((await raw(body)).text) })
  await m('raw encode+post+parse+read', async () => { const j = JSON.parse((await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_simulateV1', params: walletRequest(input) }))).text); readWalletSim(input, j.result.map((b) => b.calls.map((x) => ({ status: x.status === '0x1' ? 'success' : 'failure', data: x.error?.data ?? x.returnData, gasUsed: BigInt(x.gasUsed) })))) })
  await m('viem runWalletSim', async () => { await runWalletSim(viem, input) })
  await m('viem runWalletSim+read', async () => { const r = await runWalletSim(viem, input); readWalletSim(input, r.blocks) })
  await m('viem getBlock latest', async () => { await viem.getBlock({ blockTag: 'latest' }) })
  await m('raw blockNumber', async () => { await raw('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}') })
  await pool.close()
} finally { await anvil.stop() }
