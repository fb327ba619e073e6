import { ApiError } from '../../engine/errors.js'

/** The ApiError `f` throws; fails the test when it throws something else or nothing. */
export function apiError(f: () => unknown): ApiError {
  try {
    f()
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  throw new Error('expected an ApiError')
}

/** Asserts an HTTP answer is the error envelope with `status` and `code`; returns its `error` object. */
export async function expectApiError(
  res: Response,
  status: number,
  code: string
): Promise<{ code: string; message: string; param?: string }> {
  const text = await res.text()
  if (res.status !== status) throw new Error(`expected ${status} ${code}, got ${res.status}: ${text.slice(0, 300)}`)
  const body = JSON.parse(text) as { error?: { code: string; message: string; param?: string } }
  if (!body.error || body.error.code !== code) throw new Error(`expected code ${code}: ${text.slice(0, 300)}`)
  if (typeof body.error.message !== 'string' || body.error.message.length === 0) throw new Error('no message')
  return body.error
}
