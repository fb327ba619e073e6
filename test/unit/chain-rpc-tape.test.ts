/**
 * The chain sources' RPC tapes (ingest/sources/chain/rpc-tape.ts) on real files: failed calls are recorded and
 * replayed as the same errors (a refused span is a size error again, so the replay halves as the recorded run
 * did), a torn last line is left out, a bad line elsewhere is an error naming it, and a write that fails never
 * throws (it is counted).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { isRangeError } from '../../ingest/sources/chain/range-chunker.js'
import { RecordedError, TapePlayer, TapeRecorder } from '../../ingest/sources/chain/rpc-tape.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const dirs = tmpDir()

describe('RPC tape', () => {
  it('replays answers and failures in order, the failure with its text, code and whether the node answered it', () => {
    const file = path.join(dirs.dir, 'a', 'evm-ethereum.ndjson')
    const tape = new TapeRecorder(file)
    const refusal = Object.assign(new Error('RPC Request failed.'), {
      details: 'query exceeds max block range 1',
      cause: { code: -32005, message: 'limit' }
    })
    tape.recordError('logs', [1, 4, ['0xa'], ['0xt']], refusal)
    tape.record('logs', [1, 4, ['0xa'], ['0xt']], [{ blockNumber: 2n }])
    tape.recordError('getTransaction', ['S1'], new Error('getTransaction: -32015 version'), true)
    tape.close()
    const player = new TapePlayer(file)
    let thrown: unknown
    try {
      player.answer('logs', [1, 4, ['0xa'], ['0xt']])
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(RecordedError)
    expect((thrown as RecordedError).message).toBe('RPC Request failed. | query exceeds max block range 1 | limit')
    expect((thrown as RecordedError).code).toBe(-32005)
    expect(isRangeError(thrown)).toBe(true)
    expect(player.answer('logs', [1, 4, ['0xa'], ['0xt']])).toEqual([{ blockNumber: 2n }])
    expect(() => player.answer('getTransaction', ['S1'])).toThrow(RecordedError)
    try {
      player.answer('getTransaction', ['S1'])
    } catch (err) {
      expect((err as RecordedError).answer).toBe(true)
    }
  })

  it('leaves out a torn last line and names a bad line elsewhere', () => {
    const file = path.join(dirs.dir, 'b.ndjson')
    const good = JSON.stringify({ method: 'blockNumber', params: [], result: 7 })
    fs.writeFileSync(file, `${good}\n{"method":"block","params":[7,tr`)
    const player = new TapePlayer(file)
    expect(player.torn).toBe(1)
    expect(player.answer('blockNumber', [])).toBe(7)
    fs.writeFileSync(file, `${good}\nnot json\n${good}\n`)
    expect(() => new TapePlayer(file)).toThrow(`${file} line 2: not a recorded answer`)
  })

  it('counts a write that fails instead of throwing', () => {
    const tape = new TapeRecorder(path.join(dirs.dir, 'c.ndjson'))
    tape.close() // every write now fails (EBADF), as on a full disk
    expect(() => tape.record('blockNumber', [], 1)).not.toThrow()
    expect(tape.failed).toBe(1)
  })
})
