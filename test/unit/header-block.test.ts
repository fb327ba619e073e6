import { describe, expect, it } from 'vitest'
import type uWS from 'uWebSockets.js'
import { writeHeaders } from '../../server/http/header-block.js'

/** The bytes uWS writes for the recorded `writeHeader` calls: `name: value\r\n` each. */
function recorder(): { res: uWS.HttpResponse; wire: () => string; calls: () => number } {
  const parts: string[] = []
  let calls = 0
  const text = (v: unknown): string =>
    typeof v === 'string' ? v : Buffer.from(new Uint8Array(v as ArrayBuffer)).toString('utf8')
  const res = {
    writeHeader(name: unknown, value: unknown) {
      calls++
      parts.push(`${text(name)}: ${text(value)}\r\n`)
      return res
    }
  } as unknown as uWS.HttpResponse
  return { res, wire: () => parts.join(''), calls: () => calls }
}

const EXPECTED = 'content-type: application/json\r\nx-tidewatch-synthetic: true\r\ncache-control: no-store\r\n'

describe('writeHeaders', () => {
  it('writes a frozen header object as the same bytes in one call, encoded once', () => {
    const headers = Object.freeze({
      'content-type': 'application/json',
      'x-tidewatch-synthetic': 'true',
      'cache-control': 'no-store'
    })
    const first = recorder()
    writeHeaders(first.res, headers)
    expect(first.wire()).toBe(EXPECTED)
    expect(first.calls()).toBe(1)
    const again = recorder()
    writeHeaders(again.res, headers)
    expect(again.wire()).toBe(EXPECTED)
  })

  it('writes a header object built per answer one header at a time', () => {
    const r = recorder()
    writeHeaders(r.res, {
      'content-type': 'application/json',
      'x-tidewatch-synthetic': 'true',
      'cache-control': 'no-store'
    })
    expect(r.wire()).toBe(EXPECTED)
    expect(r.calls()).toBe(3)
  })

  it('writes nothing for an empty frozen object', () => {
    const r = recorder()
    writeHeaders(r.res, Object.freeze({}))
    expect(r.calls()).toBe(0)
  })
})
