import fs from 'node:fs'
import path from 'node:path'
import { describe, it, expect } from 'vitest'
import { ensureAdminToken, requireAdmin } from '../../server/admin-token.js'
import { ApiError } from '../../engine/errors.js'
import { tmpDir } from '../helpers/tmp-dir.js'

describe('admin token', () => {
  it('is generated once into DATA_DIR with mode 0600 and reused afterwards', () => {
    const { dir, cleanup } = tmpDir()
    const first = ensureAdminToken(undefined, dir)
    expect(first.generated).toBe(true)
    expect(first.token).toMatch(/^twadm_[A-Za-z0-9_-]{32}$/)
    const file = path.join(dir, 'admin_token')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const second = ensureAdminToken(undefined, dir)
    expect(second).toEqual({ token: first.token, generated: false, file })
    cleanup()
  })

  it('uses ADMIN_TOKEN when configured and writes nothing', () => {
    const { dir, cleanup } = tmpDir()
    expect(ensureAdminToken('configured-token-123456', dir)).toEqual({
      token: 'configured-token-123456',
      generated: false,
      file: null
    })
    expect(fs.readdirSync(dir)).toEqual([])
    cleanup()
  })

  it('accepts only the exact bearer token', () => {
    const token = 'configured-token-123456'
    expect(() => requireAdmin(`Bearer ${token}`, token)).not.toThrow()
    for (const bad of [undefined, '', token, `Bearer ${token}x`, `bearer ${token}`, `Bearer  ${token}`]) {
      let err: unknown
      try {
        requireAdmin(bad, token)
      } catch (e) {
        err = e
      }
      expect(err, String(bad)).toBeInstanceOf(ApiError)
      expect((err as ApiError).status).toBe(401)
    }
  })
})
