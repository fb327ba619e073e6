/**
 * The committed probe (engine/nodeintel/probe-artifact.ts) is what its Solidity source compiles to: the
 * server injects that bytecode, so a .sol edit without `node tools/build-probe.mjs` must fail here. Also
 * the bytecode scan over the probe itself (no PUSH0: it must run on every chain's fork).
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { PROBE_INIT_CODE, PROBE_RUNTIME } from '../../engine/nodeintel/probe-artifact.js'
import { scanCode } from '../../engine/nodeintel/bytecode.js'
import { revertReason } from '../../engine/nodeintel/revert-reason.js'
import { taxPct } from '../../engine/nodeintel/verdict.js'

describe('honeypot probe artifact', () => {
  it('matches a fresh compile of engine/nodeintel/probe/HoneypotProbe.sol', () => {
    const res = spawnSync(process.execPath, [path.join(projectRoot(), 'tools/build-probe.mjs'), '--check'], {
      encoding: 'utf8',
      timeout: 60_000
    })
    expect(res.stderr).toBe('')
    expect(res.status).toBe(0)
  })

  it('has no PUSH0 (compiled for paris) and no SELFDESTRUCT, injected or run as a constructor', () => {
    const all = Buffer.from(PROBE_RUNTIME.slice(2), 'hex')
    // the CBOR metadata trailer (its length in the last two bytes) is data, not code
    const code = all.subarray(0, all.length - 2 - all.readUInt16BE(all.length - 2))
    let push0 = false
    for (let i = 0; i < code.length; i++) {
      const op = code[i]!
      if (op === 0x5f) push0 = true
      if (op >= 0x60 && op <= 0x7f) i += op - 0x5f
    }
    expect(push0).toBe(false)
    expect(scanCode(PROBE_RUNTIME).selfdestruct).toBe(false)
    // the constructor probe's creation code is all code up to its own trailer (it deploys nothing after it)
    const init = Buffer.from(PROBE_INIT_CODE.slice(2), 'hex')
    const initCode = init.subarray(0, init.length - 2 - init.readUInt16BE(init.length - 2))
    let initPush0 = false
    for (let i = 0; i < initCode.length; i++) {
      const op = initCode[i]!
      if (op === 0x5f) initPush0 = true
      if (op >= 0x60 && op <= 0x7f) i += op - 0x5f
    }
    expect(initPush0).toBe(false)
  })
})

describe('probe helpers', () => {
  it('reads revert data: Error(string), Panic, custom errors, nothing', () => {
    const err =
      '0x08c379a0' +
      '20'.padStart(64, '0') +
      '0e'.padStart(64, '0') +
      Buffer.from('sells disabled').toString('hex').padEnd(64, '0')
    expect(revertReason(err as `0x${string}`)).toBe('sells disabled')
    expect(revertReason(('0x4e487b71' + '11'.padStart(64, '0')) as `0x${string}`)).toBe('panic 0x11')
    expect(revertReason('0xdeadbeef')).toBe('custom error 0xdeadbeef')
    expect(revertReason('0x')).toBe('reverted without a reason')
  })

  it('computes taxes in percent with 4 decimals', () => {
    expect(taxPct(10_000n, 9_500n)).toBe(5)
    expect(taxPct(3n, 2n)).toBe(33.3333)
    expect(taxPct(100n, 120n)).toBe(0)
    expect(taxPct(0n, 0n)).toBeNull()
  })

  it('finds risky selectors in compared PUSH4 immediates only, and SELFDESTRUCT outside PUSH data', () => {
    // PUSH4 40c10f19 (mint) compared by EQ, then PUSH32 whose data holds 0xff and 0x63, then SELFDESTRUCT
    const code = `0x6340c10f1914` + `7f` + 'ff63'.padEnd(64, '0') + `ff`
    const s = scanCode(code as `0x${string}`)
    expect(s.groups.mint).toEqual(['mint(address,uint256)'])
    expect(s.selfdestruct).toBe(true)
    const noDestruct = scanCode((`0x7f` + 'ff'.repeat(32)) as `0x${string}`)
    expect(noDestruct.selfdestruct).toBe(false)
    expect(
      scanCode('0x363d3d373d3d3d363d73bebebebebebebebebebebebebebebebebebebebe5af43d82803e903d91602b57fd5bf3')
        .minimalProxyTo
    ).toBe('0xbebebebebebebebebebebebebebebebebebebebe')
  })
})
