/**
 * @module
 * The one error of configuration: thrown while the environment is read at start, its message names the
 * variable at fault and the accepted values. server/main.ts prints it as one line and exits 2.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}
