/**
 * Raw HTTP/1.1 over node:net, for what fetch cannot send or show: duplicate or huge Content-Length, a
 * body sent in pieces while the answer is watched, whether the server closed the connection.
 */
import net from 'node:net'

export interface RawAnswer {
  /** status code of the first answer, 0 when none came */
  readonly status: number
  /** the answer's head and body as received (latin1) */
  readonly text: string
  /** body bytes the client had written when the first byte of the answer arrived (-1: no answer) */
  readonly sentAtAnswer: number
  /** the server had closed the connection when the request settled */
  readonly closed: boolean
}

export interface RawRequest {
  readonly port: number
  /** request line and headers, without the blank line */
  readonly head: readonly string[]
  /** body bytes to send (in pieces, each after the previous one drained), stopping once answered */
  readonly bodyBytes?: number
  /** written right after the head (e.g. a small body, or a second request) */
  readonly raw?: string | Buffer
  /** settle only when the server closes the connection, not once a whole answer has arrived */
  readonly untilClose?: boolean
}

/** Whether `text` holds a whole answer: its head and Content-Length bytes of body. */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return false
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))
  return length !== null && text.length - end - 4 >= Number(length[1])
}

/** One request on a fresh connection; settles once a whole answer has arrived, or when the server closes it. */
export function rawRequest(req: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(req.port, '127.0.0.1')
    const piece = Buffer.alloc(64 * 1024, 'x')
    let text = ''
    let sent = 0
    let sentAtAnswer = -1
    let done = false
    const finish = (closed: boolean): void => {
      if (done) return
      done = true
      socket.destroy()
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, sentAtAnswer, closed })
    }
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => {
      if (sentAtAnswer < 0) sentAtAnswer = sent
      text += d
      if (!req.untilClose && complete(text)) finish(false)
    })
    socket.on('error', () => undefined)
    socket.on('close', () => finish(true))
    socket.write([...req.head, '', ''].join('\r\n'))
    if (req.raw !== undefined) socket.write(req.raw)
    const total = req.bodyBytes ?? 0
    const pump = (): void => {
      while (sent < total && sentAtAnswer < 0 && !socket.destroyed) {
        const n = Math.min(piece.length, total - sent)
        sent += n
        if (!socket.write(n === piece.length ? piece : piece.subarray(0, n))) return void socket.once('drain', pump)
      }
    }
    pump()
  })
}
