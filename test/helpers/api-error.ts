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
