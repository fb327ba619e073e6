/**
 * @module
 * Locates the project root (the folder holding package.json) from this module, so code runs the same from
 * TypeScript sources (tests) and from the compiled `dist/` tree (npm start).
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

let root: string | undefined

export function projectRoot(): string {
  if (root) return root
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir)
    if (up === dir) throw new Error('project root (package.json) not found')
    dir = up
  }
  root = dir
  return dir
}

/** Path of a compiled module under dist/ (worker threads need plain JS files). */
export function distPath(...parts: string[]): string {
  return path.join(projectRoot(), 'dist', ...parts)
}
