/**
 * @module
 * Which bytes of runtime code are code. The EVM decodes from byte 0, skipping each PUSH1..PUSH32's
 * immediate data, and can only jump to a JUMPDEST, so bytes after a halt or an unconditional JUMP are
 * dead until a JUMPDEST that something jumps to. Compilers append data after the code: the Solidity CBOR
 * metadata (its length in the last two bytes), long constants copied out with CODECOPY, the creation
 * code of contracts the code deploys, and data appended by clone factories, usually behind an INVALID
 * (0xfe). Their bytes are not opcodes, and this walk does not report them as such.
 *
 * Reachability: the code splits into basic blocks (one starts at byte 0, at each JUMPDEST, and after
 * each JUMPI, JUMP and halt). Block 0 is live; a live block makes live the block it falls through to
 * and every JUMPDEST block whose offset it pushes (compilers push jump targets as PUSH constants, return
 * addresses included). Then every JUMPDEST block before the end of the last live block is live too, so a
 * target computed at run time inside the code section is still read; past that end, only pushed targets
 * count. Limit: code reached only through targets read from data (a jump table in the data section) is
 * not read.
 */

/** Instruction offsets into `code`: the opcode at each is `code[offset]`. */
export interface CodeView {
  /** the runtime code without its metadata trailer */
  readonly code: Uint8Array
  /** byte offsets of the instructions, in code order */
  readonly offsets: Int32Array
}

const PUSH1 = 0x60
const PUSH32 = 0x7f
const JUMP = 0x56
const JUMPI = 0x57
const JUMPDEST = 0x5b
/** STOP, JUMP, RETURN, REVERT, INVALID, SELFDESTRUCT: no fall-through to the next byte */
const ENDS_BLOCK = new Uint8Array(256)
for (const op of [0x00, JUMP, 0xf3, 0xfd, 0xfe, 0xff]) ENDS_BLOCK[op] = 1

/** Immediate size of a PUSH1..PUSH32 opcode, 0 for any other. */
export function pushSize(op: number): number {
  return op >= PUSH1 && op <= PUSH32 ? op - PUSH1 + 1 : 0
}

/** The code without its Solidity metadata trailer (left as is when the trailer does not parse). */
export function withoutMetadata(code: Uint8Array): Uint8Array {
  if (code.length < 2) return code
  const len = (code[code.length - 2]! << 8) | code[code.length - 1]!
  const start = code.length - 2 - len
  // a CBOR map header (0xa1..0xa5 entries) where the trailer should begin
  if (len > 0 && start > 0 && code[start]! >= 0xa1 && code[start]! <= 0xa5) return code.subarray(0, start)
  return code
}

/** Offsets of every instruction, as a linear decode from byte 0 sees them (PUSH data skipped). */
export function decode(code: Uint8Array): Int32Array {
  const out = new Int32Array(code.length)
  let n = 0
  for (let pc = 0; pc < code.length; pc += 1 + pushSize(code[pc]!)) out[n++] = pc
  return out.subarray(0, n)
}

/**
 * The value a PUSH at `pc` puts on the stack as a code offset (bytes past the end read as zero, as the
 * EVM pads them), or -1 when it is not a PUSH or the value exceeds 32 bits.
 */
function pushedOffset(code: Uint8Array, pc: number): number {
  const n = pushSize(code[pc]!)
  if (n === 0) return -1
  let v = 0
  for (let k = 0; k < n; k++) {
    const b = code[pc + 1 + k] ?? 0
    if (n - k > 4) {
      if (b !== 0) return -1
    } else v = v * 256 + b
  }
  return v
}

/** The instructions the EVM can execute (see the module comment), in code order; metadata cut off first. */
export function liveCode(full: Uint8Array): CodeView {
  const code = withoutMetadata(full)
  const ins = decode(code)
  // basic blocks as [first, end) instruction indexes; a JUMPDEST block is found by its pc
  const first: number[] = []
  const end: number[] = []
  const fallsThrough: boolean[] = []
  const blockAt = new Int32Array(code.length).fill(-1)
  let open = 0
  const close = (e: number, falls: boolean): void => {
    if (code[ins[open]!] === JUMPDEST) blockAt[ins[open]!] = first.length
    first.push(open)
    end.push(e)
    fallsThrough.push(falls)
    open = e
  }
  for (let i = 0; i < ins.length; i++) {
    const op = code[ins[i]!]!
    if (op === JUMPDEST && i > open) close(i, true)
    if (ENDS_BLOCK[op] || op === JUMPI) close(i + 1, op === JUMPI)
  }
  if (open < ins.length) close(ins.length, false)

  const live = new Uint8Array(first.length)
  const queue: number[] = first.length > 0 ? [0] : []
  let liveEnd = 0
  while (queue.length > 0) {
    while (queue.length > 0) {
      const b = queue.pop()!
      if (live[b]) continue
      live[b] = 1
      const lastPc = ins[end[b]! - 1]!
      liveEnd = Math.max(liveEnd, lastPc + 1 + pushSize(code[lastPc]!))
      if (fallsThrough[b] && b + 1 < first.length) queue.push(b + 1)
      for (let i = first[b]!; i < end[b]!; i++) {
        const v = pushedOffset(code, ins[i]!)
        const target = v >= 0 && v < code.length ? blockAt[v]! : -1
        if (target >= 0 && !live[target]) queue.push(target)
      }
    }
    // JUMPDEST blocks inside the reachable code section, whatever jumps to them
    for (let pc = 0; pc < liveEnd && pc < code.length; pc++) {
      const b = blockAt[pc]!
      if (b >= 0 && !live[b]) queue.push(b)
    }
  }
  const offsets = new Int32Array(ins.length)
  let n = 0
  for (let b = 0; b < first.length; b++) if (live[b]) for (let i = first[b]!; i < end[b]!; i++) offsets[n++] = ins[i]!
  return { code, offsets: offsets.subarray(0, n) }
}
