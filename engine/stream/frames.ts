/**
 * @module
 * Server frames of the push stream and their two encodings: JSON text frames (default) and MessagePack
 * binary frames (`?encoding=msgpack`, msgpackr without its record extension, so any MessagePack decoder
 * reads them as plain maps). Both carry the same objects.
 */
import { Packr, Unpackr } from 'msgpackr'

export type Encoding = 'json' | 'msgpack'
export const ENCODINGS: readonly Encoding[] = ['json', 'msgpack']

export interface ChannelError {
  readonly channel: string
  readonly code: string
  readonly message: string
}

export type ServerMessage =
  | { readonly type: 'update'; readonly channel: string; readonly seq: number; readonly data: unknown }
  | {
      readonly type: 'snapshot'
      readonly channel: string
      readonly seq: number
      readonly data: unknown
      /** true when the client asked to resume (from_seq) but the updates it missed are no longer retained */
      readonly reset?: boolean
      /** present (true) when the service holds synthetic demo data */
      readonly synthetic?: true
    }
  | {
      readonly type: 'ack'
      readonly op: string
      readonly id?: string | number
      readonly channels: readonly string[]
      readonly errors: readonly ChannelError[]
    }
  | { readonly type: 'pong'; readonly id?: string | number; readonly ts: number }
  | { readonly type: 'error'; readonly code: string; readonly message: string; readonly id?: string | number }
  | {
      readonly type: 'welcome'
      /** present (true) when the service holds synthetic demo data: every channel's data is synthetic */
      readonly synthetic?: true
      readonly plan: string
      readonly limits: Readonly<Record<string, number>>
      readonly encoding: Encoding
    }

const packr = new Packr({ useRecords: false })
const unpackr = new Unpackr({ useRecords: false })

export function encodeFrame(msg: ServerMessage, encoding: Encoding): string | Uint8Array {
  return encoding === 'json' ? JSON.stringify(msg) : packr.pack(msg)
}

/** Decodes a MessagePack client frame (binary frames of either encoding). */
export function decodeMsgpack(bytes: Uint8Array): unknown {
  return unpackr.unpack(bytes)
}
