/**
 * @module
 * The one error an import stops with: it names the file and, when a line is at fault, the 1-based line
 * number (line 0: the file as a whole, e.g. a truncated zip or a checksum mismatch). Nothing of that file
 * has been written when it is thrown (see writer.ts for why).
 */
export class ImportError extends Error {
  override readonly name = 'ImportError'
  constructor(
    /** the file as the user named it */
    readonly file: string,
    /** 1-based line of the CSV content; 0 when the file as a whole is at fault */
    readonly line: number,
    readonly reason: string,
    options?: ErrorOptions
  ) {
    super(`${file}${line > 0 ? `, line ${line}` : ''}: ${reason}; nothing from this file was written`, options)
  }
}
