import { describe, expect, it } from 'vitest'
import { LineCount, newlines } from '../../engine/runtime/line-count.js'

describe('line count', () => {
  it('counts lines across chunks however the bytes are cut, an unterminated last line included', () => {
    const text = Buffer.from('a,1\nb,2\n\nc,3')
    for (let cut = 0; cut <= text.length; cut++) {
      const c = new LineCount()
      c.add(text.subarray(0, cut))
      c.add(text.subarray(cut))
      expect(c.lines).toBe(4)
    }
    expect(newlines(text)).toBe(3)
  })

  it('has no lines for an empty stream and none beyond the last newline', () => {
    expect(new LineCount().lines).toBe(0)
    const c = new LineCount()
    c.add(Buffer.from('x\ny\n'))
    c.add(Buffer.alloc(0))
    expect(c.lines).toBe(2)
  })
})
