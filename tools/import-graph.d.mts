/** One import between two local files, paths relative to the root; `typeOnly`: erased at run time. */
export interface ImportEdge {
  readonly from: string
  readonly to: string
  readonly typeOnly: boolean
}
/** The source folders read, tests excluded. */
export const SOURCE_ROOTS: readonly string[]
/** Files under `from` import nothing under any of `notInto`. */
export const LAYER_RULES: ReadonlyArray<{ readonly from: string; readonly notInto: readonly string[] }>
/** The relative specifiers a file's text names; `typeOnly` for `import type` / `export type`. */
export function importsOf(text: string): Array<{ specifier: string; typeOnly: boolean }>
/** Every source file under the roots and every local edge between them. */
export function importGraph(root: string): { files: string[]; edges: ImportEdge[] }
/** The import circles: strongly connected components of more than one file, or a file importing itself. */
export function importCircles(files: readonly string[], edges: readonly ImportEdge[]): string[][]
/** The edges that break a layer rule, as `from -> to`. */
export function layerBreaches(edges: readonly ImportEdge[]): string[]
