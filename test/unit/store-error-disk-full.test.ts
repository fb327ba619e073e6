/**
 * A full disk is classified as retryable (`disk_full`), whichever way it surfaces: the engine's 243
 * NOT_ENOUGH_SPACE (as chDB answered on a full tmpfs), an I/O code carrying the system's out-of-space error,
 * or Node's ENOSPC from the ingest journal's own writes. Bad data stays not retryable.
 */
import { describe, it, expect } from 'vitest'
import { toStoreError } from '../../engine/store/store-error.js'

describe('store errors of a full disk', () => {
  it.each([
    [
      'Code: 243. DB::Exception: Cannot reserve 7.40 MiB, not enough space: while pushing to view default.candles_1m_mv. (NOT_ENOUGH_SPACE)'
    ],
    ['Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)'],
    [
      'Code: 75. DB::ErrnoException: Cannot write to file /d/store/x.bin, errno: 28, strerror: No space left on device. (CANNOT_WRITE_TO_FILE_DESCRIPTOR)'
    ],
    [
      'Code: 1001. DB::Exception: std::__1::__fs::filesystem::filesystem_error: No space left on device. (STD_EXCEPTION)'
    ]
  ])('%s', (message) => {
    const e = toStoreError(new Error(message))
    expect(e.errorClass).toBe('disk_full')
    expect(e.retryable).toBe(true)
  })

  it("Node's ENOSPC and EDQUOT (the journal's writes) are a full disk", () => {
    for (const code of ['ENOSPC', 'EDQUOT']) {
      const err = Object.assign(new Error(`${code}: no space left on device, write`), { code })
      expect(toStoreError(err)).toMatchObject({ errorClass: 'disk_full', retryable: true })
    }
  })

  it('an I/O code without the out-of-space text, and bad data, are not retried as a full disk', () => {
    expect(toStoreError(new Error('Code: 75. Cannot write to file: Bad file descriptor.')).errorClass).toBe('fatal')
    expect(toStoreError(new Error('Code: 27. Cannot parse input')).retryable).toBe(false)
  })
})
