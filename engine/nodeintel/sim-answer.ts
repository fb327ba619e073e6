/**
 * @module
 * Reading an `eth_simulateV1` answer (engine/nodeintel/wallet-sim.ts) for what the check uses of it: each
 * call's status, return data, revert data (`error.data`) and gas. The wallet simulation's answer is ~23-32 KB
 * of JSON-RPC text, about half of it the calls' logs and a fifth the blocks' headers, none of which is read;
 * parsed whole, every log and header becomes objects and strings that die at once. `simOutcomesFromText` walks the text
 * instead and takes only those four fields of each call, skipping every other value without building it.
 *
 * The walk expects a success answer as a node writes it: an object whose `result` is an array of block
 * objects, each with a `calls` array of call objects whose four fields are strings (quantities and data as
 * hex, no escapes). Anything else (an `error` answer, another shape, an escape in a field read) gives
 * `undefined`, and the lean client parses the whole text as before (engine/chain/raw-rpc.ts
 * `AnswerPicker`) and the outcomes are read from the parsed result, so the answer's meaning never depends on
 * this reader: both paths give the same outcomes (test/unit/sim-answer.test.ts).
 */
import type { Hex } from 'viem'

/** One simulated call as the node answered it (status, raw return or revert data, gas). */
export interface CallOutcome {
  readonly status: 'success' | 'failure'
  /** return data, or revert data of a failure */
  readonly data: Hex
  readonly gasUsed: bigint
}

/** One simulated block's calls as the node writes them (the fields read; quantities as hex). */
interface RpcSimBlock {
  readonly calls: readonly {
    readonly status: Hex
    readonly returnData: Hex
    readonly gasUsed: Hex
    readonly error?: { readonly data?: Hex }
  }[]
}

const QUOTE = 0x22 // "
const BACKSLASH = 0x5c
const OPEN_OBJ = 0x7b // {
const CLOSE_OBJ = 0x7d // }
const OPEN_ARR = 0x5b // [
const CLOSE_ARR = 0x5d // ]
const COMMA = 0x2c
const COLON = 0x3a

/** a failed walk: the whole text is parsed instead (one instance: thrown, never shown) */
const UNREADABLE = new Error('not a plain eth_simulateV1 answer')

/** One walk over one answer's text; `i` is the position of the next character to read. */
class Walk {
  i = 0
  constructor(private readonly t: string) {}

  /** the next character that is not JSON whitespace (its code), `i` on it */
  peek(): number {
    const t = this.t
    let c = t.charCodeAt(this.i)
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.i)
    return c
  }

  expect(code: number): void {
    if (this.peek() !== code) throw UNREADABLE
    this.i++
  }

  /** a string without escapes (a key, or a hex field), `i` past its closing quote */
  plainString(): string {
    if (this.peek() !== QUOTE) throw UNREADABLE
    const start = this.i + 1
    const end = this.t.indexOf('"', start)
    if (end < 0) throw UNREADABLE
    const s = this.t.slice(start, end)
    if (s.includes('\\')) throw UNREADABLE
    this.i = end + 1
    return s
  }

  /** past a string whose opening quote is at `i` (escaped quotes inside it skipped) */
  private skipString(): void {
    const t = this.t
    let end = t.indexOf('"', this.i + 1)
    for (;;) {
      if (end < 0) throw UNREADABLE
      let k = end - 1
      while (t.charCodeAt(k) === BACKSLASH) k--
      if ((end - k) % 2 === 1) break // an even run of backslashes before it: the closing quote
      end = t.indexOf('"', end + 1)
    }
    this.i = end + 1
  }

  /** past any one value (string, object, array, number, literal) without building it */
  skipValue(): void {
    const t = this.t
    const c = this.peek()
    if (c === QUOTE) return this.skipString()
    if (c === OPEN_OBJ || c === OPEN_ARR) {
      let depth = 0
      for (;;) {
        const d = t.charCodeAt(this.i)
        if (d === QUOTE) {
          this.skipString()
          continue
        }
        if (d === OPEN_OBJ || d === OPEN_ARR) depth++
        else if (d === CLOSE_OBJ || d === CLOSE_ARR) depth--
        else if (Number.isNaN(d)) throw UNREADABLE
        this.i++
        if (depth === 0) return
      }
    }
    // a number or a literal: up to the next delimiter
    let d = c
    while (d !== COMMA && d !== CLOSE_OBJ && d !== CLOSE_ARR && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09) {
      if (Number.isNaN(d)) throw UNREADABLE
      d = t.charCodeAt(++this.i)
    }
  }

  /** each member of the object at `i`: `member(key)` reads its value (or skips it), `i` past the object */
  object(member: (key: string) => void): void {
    this.expect(OPEN_OBJ)
    if (this.peek() === CLOSE_OBJ) {
      this.i++
      return
    }
    for (;;) {
      const key = this.plainString()
      this.expect(COLON)
      member(key)
      const c = this.peek()
      this.i++
      if (c === CLOSE_OBJ) return
      if (c !== COMMA) throw UNREADABLE
    }
  }

  /** each element of the array at `i`, `i` past the array */
  array(element: () => void): void {
    this.expect(OPEN_ARR)
    if (this.peek() === CLOSE_ARR) {
      this.i++
      return
    }
    for (;;) {
      element()
      const c = this.peek()
      this.i++
      if (c === CLOSE_ARR) return
      if (c !== COMMA) throw UNREADABLE
    }
  }
}

/** one call's outcome from its four fields (the same reading as `fromValue`) */
const outcome = (status: string, returnData: string, errorData: string | undefined, gasUsed: string): CallOutcome => ({
  status: status === '0x1' ? 'success' : 'failure',
  data: (errorData ?? returnData) as Hex,
  gasUsed: BigInt(gasUsed)
})

/** The calls' outcomes read from the answer's text (a class of its own: the lean client's other answer is the parsed result). */
export class SimOutcomes {
  constructor(readonly blocks: CallOutcome[][]) {}
}

/**
 * The calls' outcomes of a whole JSON-RPC answer's text; undefined when it is not a plain success answer
 * (or a gas is not a quantity: the whole parse's reading then fails as it does for any answer).
 */
export function simOutcomesFromText(text: string): SimOutcomes | undefined {
  const w = new Walk(text)
  let blocks: CallOutcome[][] | undefined
  try {
    w.object((key) => {
      if (key === 'error') throw UNREADABLE
      if (key !== 'result') return w.skipValue()
      blocks = []
      w.array(() => {
        const calls: CallOutcome[] = []
        w.object((k) => {
          if (k !== 'calls') return w.skipValue()
          w.array(() => {
            let status: string | undefined
            let returnData: string | undefined
            let gasUsed: string | undefined
            let errorData: string | undefined
            w.object((f) => {
              if (f === 'status') status = w.plainString()
              else if (f === 'returnData') returnData = w.plainString()
              else if (f === 'gasUsed') gasUsed = w.plainString()
              else if (f === 'error' && w.peek() === OPEN_OBJ)
                w.object((e) => (e === 'data' && w.peek() === QUOTE ? (errorData = w.plainString()) : w.skipValue()))
              else w.skipValue()
            })
            if (status === undefined || returnData === undefined || gasUsed === undefined) throw UNREADABLE
            calls.push(outcome(status, returnData, errorData, gasUsed))
          })
        })
        blocks!.push(calls)
      })
    })
    if (!Number.isNaN(w.peek())) return undefined // text after the answer: the whole parse's error
  } catch {
    return undefined // not a plain answer, or BigInt of a gas that is not a quantity
  }
  return blocks && new SimOutcomes(blocks)
}

/** The calls' outcomes of a parsed answer's `result` (the blocks). */
export function simOutcomesFromValue(result: unknown): CallOutcome[][] {
  return (result as RpcSimBlock[]).map((b) =>
    b.calls.map((x) => outcome(x.status, x.returnData, x.error?.data, x.gasUsed))
  )
}
