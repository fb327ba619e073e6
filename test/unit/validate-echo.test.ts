/**
 * How much of a client-chosen name an error repeats (docs/access.md, "Errors"): an unknown query parameter
 * or JSON body field is named in the message and `param` up to 64 characters, then its length.
 */
import { describe, it, expect } from 'vitest'
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../engine/errors.js'
import { compileQuery, echoName, MAX_ECHOED_NAME, parseJsonBody } from '../../server/validate.js'

function refusal(fn: () => unknown): ApiError {
  try {
    fn()
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  throw new Error('expected a refusal')
}

describe('unknown names in errors', () => {
  const validate = compileQuery(Type.Object({ symbol: Type.Optional(Type.String()) }))

  it('repeats a short unknown parameter whole', () => {
    const err = refusal(() => validate(new URLSearchParams('symbl=BTC')))
    expect(err.param).toBe('symbl')
    expect(err.message).toBe("unknown parameter 'symbl'; this endpoint takes symbol")
  })

  it('cuts a long one at 64 characters and says how long it was', () => {
    const name = 'a'.repeat(100_000)
    const err = refusal(() => validate(new URLSearchParams(`${name}=1`)))
    expect(err.param).toBe(`${'a'.repeat(MAX_ECHOED_NAME)}... (100000 characters)`)
    expect(err.message.length).toBeLessThan(200)
    expect(err.message).toContain('this endpoint takes symbol')
  })

  it('cuts an unknown JSON body field the same way', () => {
    const schema = Type.Object({ plan: Type.String() })
    const err = refusal(() => parseJsonBody(schema, Buffer.from(JSON.stringify({ ['x'.repeat(5000)]: 1 }))))
    expect(err.param).toBe(`${'x'.repeat(MAX_ECHOED_NAME)}... (5000 characters)`)
    expect(err.message.length).toBeLessThan(200)
  })

  it('never leaves half of a surrogate pair at the cut', () => {
    const shown = echoName('a'.repeat(MAX_ECHOED_NAME - 1) + '😀'.repeat(10))
    expect(shown.startsWith('a'.repeat(MAX_ECHOED_NAME - 1) + '...')).toBe(true)
    // no lone high surrogate: encodeURIComponent throws on one
    expect(() => encodeURIComponent(shown)).not.toThrow()
  })
})
