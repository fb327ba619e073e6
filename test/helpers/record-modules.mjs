/**
 * @module
 * A process's ES module loads, recorded: run a process with `--import=<this file>` and `RECORD_MODULES`
 * set to a file path, and every module URL it loads (ES modules, and CommonJS packages an ES module
 * imports) is appended to that file, one a line. Used by test/e2e/start-modules.test.ts.
 */
import { register } from 'node:module'

const hooks = `
import fs from 'node:fs'
export async function load(url, context, next) {
  const loaded = await next(url, context)
  if (process.env.RECORD_MODULES) fs.appendFileSync(process.env.RECORD_MODULES, url + '\\n')
  return loaded
}
`
register('data:text/javascript,' + encodeURIComponent(hooks))
