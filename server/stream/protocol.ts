/**
 * @module
 * Client frames of the push stream (docs/stream.md): `subscribe`, `unsubscribe`, `ping`. Text frames are
 * JSON, binary frames MessagePack, whatever the connection's encoding. Anything else is a ProtocolError
 * answered with an `error` frame; the connection stays open.
 */
import type { StreamErrorCode } from '../../engine/errors.js'
import { decodeMsgpack } from '../../engine/stream/frames.js'

/** Largest client frame the protocol reads, bytes (frames above 64 KiB are refused by the socket itself). */
export const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024
/** Channels in one subscribe or unsubscribe op. */
export const MAX_CHANNELS_PER_OP = 100

export type OpId = string | number

export interface ChannelRequest {
  readonly name: string
  /** first sequence number the client has not received (resume), or null for a snapshot */
  readonly fromSeq: number | null
}

export type ClientOp =
  | { readonly op: 'subscribe'; readonly id?: OpId; readonly channels: readonly ChannelRequest[] }
  | { readonly op: 'unsubscribe'; readonly id?: OpId; readonly channels: readonly ChannelRequest[] }
  | { readonly op: 'ping'; readonly id?: OpId }

export class ProtocolError extends Error {
  constructor(
    readonly code: StreamErrorCode,
    message: string,
    readonly id?: OpId
  ) {
    super(message)
  }
}

function opId(v: unknown): OpId | undefined {
  if (typeof v === 'string' && v.length <= 64) return v
  if (typeof v === 'number' && Number.isFinite(v)) return v
  return undefined
}

function channelList(msg: Record<string, unknown>, id: OpId | undefined): ChannelRequest[] {
  const list = msg['channels']
  if (!Array.isArray(list) || list.length === 0) {
    throw new ProtocolError('invalid_parameter', 'channels must be a non-empty array of channel names', id)
  }
  if (list.length > MAX_CHANNELS_PER_OP) {
    throw new ProtocolError('invalid_parameter', `at most ${MAX_CHANNELS_PER_OP} channels per op`, id)
  }
  return list.map((c, i): ChannelRequest => {
    if (typeof c === 'string') return { name: c, fromSeq: null }
    if (c && typeof c === 'object' && typeof (c as Record<string, unknown>)['channel'] === 'string') {
      const from = (c as Record<string, unknown>)['from_seq']
      if (from !== undefined && (typeof from !== 'number' || !Number.isSafeInteger(from) || from < 0)) {
        throw new ProtocolError('invalid_parameter', `channels[${i}].from_seq must be a non-negative integer`, id)
      }
      return { name: (c as Record<string, unknown>)['channel'] as string, fromSeq: from ?? null }
    }
    throw new ProtocolError(
      'invalid_parameter',
      `channels[${i}] must be a channel name or {"channel": name, "from_seq": n}`,
      id
    )
  })
}

/** Parses one client frame (`bytes` is only valid during the call: nothing keeps a reference). */
export function parseClientMessage(bytes: Uint8Array, binary: boolean): ClientOp {
  if (bytes.byteLength > MAX_CLIENT_MESSAGE_BYTES) {
    throw new ProtocolError('message_too_large', `client frames are at most ${MAX_CLIENT_MESSAGE_BYTES} bytes`)
  }
  let msg: unknown
  try {
    msg = binary ? decodeMsgpack(bytes) : JSON.parse(Buffer.from(bytes).toString('utf8'))
  } catch {
    throw new ProtocolError(
      'invalid_message',
      binary ? 'binary frames must be MessagePack' : 'text frames must be JSON'
    )
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
    throw new ProtocolError('invalid_message', 'a frame must be an object like {"op":"subscribe","channels":[...]}')
  }
  const m = msg as Record<string, unknown>
  const id = opId(m['id'])
  switch (m['op']) {
    case 'subscribe':
      return { op: 'subscribe', ...(id !== undefined && { id }), channels: channelList(m, id) }
    case 'unsubscribe':
      return { op: 'unsubscribe', ...(id !== undefined && { id }), channels: channelList(m, id) }
    case 'ping':
      return { op: 'ping', ...(id !== undefined && { id }) }
    default:
      throw new ProtocolError(
        'unknown_op',
        `op must be subscribe, unsubscribe or ping (got ${JSON.stringify(m['op'] ?? null).slice(0, 40)})`,
        id
      )
  }
}
