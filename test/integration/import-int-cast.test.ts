/**
 * The one statement reading an import file itself converts a required integer cell with
 * `accurateCast(t, '<Type>')` (ingest/import/stage-ints.ts), the staging table parses it with
 * `to<Type>OrNull`: on the engine in use, the conversion must throw on exactly the cells the parse gives
 * NULL for (empty, past the type, signed in an unsigned type, quoted, spaced, `\N`, ...) and give the same
 * value for every other cell, for every integer type of the layouts and their signed counterparts.
 */
import { describe, expect, it } from 'vitest'
import { useImportStore } from '../helpers/import-store.js'

const env = useImportStore('tidewatch-import-int-cast-')

const CELLS = [
  ...['', '0', '1', '+1', '-1', '-0', '00012', '1.5', '1.', '.5', '"1"', "'1'", ' 1', '1 ', '\t1', '1\r'],
  ...['\\N', 'NULL', '1e3', '0x10', 'inf', 'nan', '1_000', '+', '-', '--1', '+-1', '1,2', '0b1', '１'],
  ...['255', '256', '-128', '-129', '65535', '65536', '2147483648', '4294967295', '4294967296'],
  ...['9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809'],
  ...['18446744073709551615', '18446744073709551616', '18446744073709552616', '99999999999999999999999']
]

describe('accurateCast refuses the integer cells to<Type>OrNull refuses', () => {
  for (const type of ['UInt8', 'UInt16', 'UInt32', 'UInt64', 'Int8', 'Int32', 'Int64']) {
    it(`${type}: the same cells refused, the same values otherwise`, async () => {
      const differ: string[] = []
      for (const s of CELLS) {
        const [row] = await env.store.query<{ v: string | null }>(`SELECT toString(to${type}OrNull({s:String})) AS v`, {
          s
        })
        const cast = await env.store
          .query<{ v: string }>(`SELECT toString(accurateCast({s:String}, '${type}')) AS v`, { s })
          .then(
            (r) => r[0]!.v,
            () => null
          )
        if (cast !== row!.v) differ.push(`${JSON.stringify(s)}: ${row!.v} / ${cast}`)
      }
      expect(differ).toEqual([])
    })
  }
})
