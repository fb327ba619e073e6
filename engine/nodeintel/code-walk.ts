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

/** One decoded instruction. */
export interface Instruction {
  /** byte offset in the code */
  readonly pc: number
  readonly op: number
  /** PUSH1..PUSH32 immediate (zero-padded when the code ends inside it, as the EVM reads it); empty otherwise */
  readonly imm: Uint8Array
}

const PUSH1 = 0x60
const PUSH32 = 0x7f
const JUMP = 0x56
const JUMPI = 0x57
const JUMPDEST = 0x5b
/** STOP, JUMP, RETURN, REVERT, INVALID, SELFDESTRUCT: no fall-through to the next byte */
const ENDS_BLOCK = new Set([0x00, JUMP, 0xf3, 0xfd, 0xfe, 0xff])

/** The code without its Solidity metadata trailer (left as is when the trailer does not parse). */
export function withoutMetadata(code: Uint8Array): Uint8Array {
  if (code.length < 2) return code
  const len = (code[code.length - 2]! << 8) | code[code.length - 1]!
  const start = code.length - 2 - len
  // a CBOR map header (0xa1..0xa5 entries) where the trailer should begin
  if (len > 0 && start > 0 && code[start]! >= 0xa1 && code[start]! <= 0xa5) return code.subarray(0, start)
  return code
}

/** Every instruction in order, as a linear decode from byte 0 sees it. */
export function decode(code: Uint8Array): Instruction[] {
  const out: Instruction[] = []
  const none = new Uint8Array(0)
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc]!
    if (op >= PUSH1 && op <= PUSH32) {
      const n = op - PUSH1 + 1
      const imm = new Uint8Array(n)
      imm.set(code.subarray(pc + 1, pc + 1 + n))
      out.push({ pc, op, imm })
      pc += n
    } else out.push({ pc, op, imm: none })
  }
  return out
}

interface Block {
  /** index of its first instruction */
  readonly first: number
  /** index after its last instruction */
  readonly end: number
  readonly fallsThrough: boolean
}

function blocks(ins: readonly Instruction[]): Block[] {
  const out: Block[] = []
  let first = 0
  for (let i = 0; i < ins.length; i++) {
    const op = ins[i]!.op
    if (op === JUMPDEST && i > first) {
      out.push({ first, end: i, fallsThrough: true })
      first = i
    }
    if (ENDS_BLOCK.has(op) || op === JUMPI) {
      out.push({ first, end: i + 1, fallsThrough: op === JUMPI })
      first = i + 1
    }
  }
  if (first < ins.length) out.push({ first, end: ins.length, fallsThrough: false })
  return out
}

/** A PUSH immediate as a code offset, or -1 when it is too large to be one (> 32 bits). */
function pushedOffset(imm: Uint8Array): number {
  let v = 0
  for (let k = 0; k < imm.length; k++) {
    if (imm.length - k > 4 && imm[k] !== 0) return -1
    v = v * 256 + imm[k]!
  }
  return imm.length === 0 ? -1 : v
}

/** The instructions the EVM can execute (see the module comment), in code order; metadata cut off first. */
export function liveInstructions(code: Uint8Array): Instruction[] {
  const ins = decode(withoutMetadata(code))
  const bs = blocks(ins)
  const blockAtJumpdest = new Map<number, number>()
  bs.forEach((b, k) => {
    const head = ins[b.first]!
    if (head.op === JUMPDEST) blockAtJumpdest.set(head.pc, k)
  })
  const live = new Uint8Array(bs.length)
  const queue: number[] = bs.length > 0 ? [0] : []
  let liveEnd = 0
  while (queue.length > 0) {
    while (queue.length > 0) {
      const k = queue.pop()!
      if (live[k]) continue
      live[k] = 1
      const b = bs[k]!
      const last = ins[b.end - 1]!
      liveEnd = Math.max(liveEnd, last.pc + 1 + last.imm.length)
      if (b.fallsThrough && k + 1 < bs.length) queue.push(k + 1)
      for (let i = b.first; i < b.end; i++) {
        const target = blockAtJumpdest.get(pushedOffset(ins[i]!.imm))
        if (target !== undefined && !live[target]) queue.push(target)
      }
    }
    for (const [pc, k] of blockAtJumpdest) if (pc < liveEnd && !live[k]) queue.push(k)
  }
  const out: Instruction[] = []
  bs.forEach((b, k) => {
    if (live[k]) for (let i = b.first; i < b.end; i++) out.push(ins[i]!)
  })
  return out
}
