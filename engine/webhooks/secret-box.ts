/**
 * @module
 * Encryption at rest of webhook signing keys. The spec stores a registration's secret only as its SHA-256
 * hex digest, but that digest is the HMAC key of every delivery: whoever reads it can forge deliveries.
 * So the digest is stored sealed with AES-256-GCM under `WEBHOOK_KEY` (32 bytes, hex or base64), or under a
 * key generated on first start into `DATA_DIR/webhook.key` (mode 0600). Each sealed value is bound to its
 * webhook id (additional authenticated data), so a sealed key copied onto another row does not open.
 *
 * Sealed text: `v1.<iv>.<tag>.<ciphertext>`, base64url parts; a fresh 96-bit IV per seal.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const KEY_FILE = 'webhook.key'
const VERSION = 'v1'

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** A box over 32 key bytes. */
  static fromKey(key: Buffer): SecretBox {
    if (key.length !== 32) throw new Error('a webhook key is 32 bytes')
    return new SecretBox(Buffer.from(key))
  }

  /**
   * The box of this deployment: `WEBHOOK_KEY` when set (already validated by the config), otherwise the key
   * file in `dataDir`, created with mode 0600 when missing.
   */
  static open(configured: Buffer | undefined, dataDir: string): { box: SecretBox; generatedFile: string | null } {
    if (configured) return { box: SecretBox.fromKey(configured), generatedFile: null }
    const file = path.join(dataDir, KEY_FILE)
    try {
      const text = fs.readFileSync(file, 'utf8').trim()
      const key = Buffer.from(text, 'hex')
      if (key.length !== 32 || key.toString('hex') !== text.toLowerCase()) {
        throw new Error(`${file} must hold 64 hex characters (the webhook key); restore it or set WEBHOOK_KEY`)
      }
      return { box: SecretBox.fromKey(key), generatedFile: null }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    const key = crypto.randomBytes(32)
    // wx: never overwrite a key another process wrote meanwhile (that one would then be read above next start)
    fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
    return { box: SecretBox.fromKey(key), generatedFile: file }
  }

  /** Seals `plain`, bound to `context` (the webhook id). */
  seal(plain: string, context: string): string {
    const iv = crypto.randomBytes(12)
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(context))
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    const tag = cipher.getAuthTag()
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join('.')
  }

  /** Opens a sealed value; throws when the key, the context or the bytes differ from the seal's. */
  open(sealed: string, context: string): string {
    const parts = sealed.split('.')
    if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('not a sealed webhook key')
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(parts[1]!, 'base64url'))
    decipher.setAAD(Buffer.from(context))
    decipher.setAuthTag(Buffer.from(parts[2]!, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8')
  }
}

/** Reads `WEBHOOK_KEY`: 64 hex characters or base64 of 32 bytes. Throws a message naming the variable. */
export function parseWebhookKey(raw: string): Buffer {
  const s = raw.trim()
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex')
  const b = Buffer.from(s, 'base64')
  if (b.length === 32 && /^[A-Za-z0-9+/_-]{43}=?$/.test(s)) return b
  throw new Error('WEBHOOK_KEY must be 32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)')
}
