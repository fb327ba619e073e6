/**
 * @module
 * The engine's ways of reading a data.binance.vision aggTrades CSV, measured in one process on chDB:
 * `node dist/bench/import/formats.js <csv> <tsv> [rounds] [candidate,...]`. Each candidate reads the file as the
 * import's columns (`c_agg_trade_id` UInt64, `c_price` Float64, ...), applies the layout's conversions to
 * `trades` and writes into a `Null` table (no part, no view): what the read and the conversions cost,
 * nothing else. Rounds alternate the candidates; each line is rows/s and the process's CPU-seconds (every
 * thread) of one read. The file must have its header line (the bench's dataset does).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { settingsClause, sqlString } from '../../engine/store/sql-text.js'
import { planFile } from '../../ingest/import/plan-file.js'
import {
  DIRECT_READ_SETTINGS,
  directInputSettings,
  directSource,
  inputSettings
} from '../../ingest/import/stage-sql.js'
import { median } from '../stats.js'

/** The aggTrades columns as the import reads them (binance-vision.ts), typed. */
const TYPED =
  'c_agg_trade_id UInt64, c_price Float64, c_quantity Float64, c_first_trade_id UInt64, c_last_trade_id UInt64, c_transact_time UInt64, c_is_buyer_maker String'
/** the integer columns as text, parsed by `toUInt64OrNull` (empty, overflowing or spaced cells give NULL) */
const TEXT_INTS = TYPED.replace(/c_(\w+) UInt64/g, 't_$1 String')
/** the integer columns as Nullable of `t`, an empty cell NULL (`format_csv_null_representation` empty) */
const wideInts = (t: string): string => TYPED.replace(/c_(\w+) UInt64/g, `n_$1 Nullable(${t})`)
/** the integer columns read as `wideInts(t)`, each refused when NULL or past `max` */
const wideFrom = (f: string, t: string, max: string): string => {
  const ok = ['agg_trade_id', 'first_trade_id', 'last_trade_id', 'transact_time']
    .map((n) => `ifNull(n_${n} <= ${max}, 0)`)
    .join(' AND ')
  return `(SELECT toUInt64(assumeNotNull(n_agg_trade_id)) AS c_agg_trade_id, c_price, c_quantity,
    toUInt64(assumeNotNull(n_transact_time)) AS c_transact_time, c_is_buyer_maker
    FROM file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(wideInts(t))})
    WHERE throwIf(NOT (${ok}), 'ints') = 0)`
}
const STRINGS = TYPED.replace(/ (UInt64|Float64)/g, ' String')

interface Candidate {
  /** FROM clause giving the c_ columns */
  readonly from: (csv: string, bare: string) => string
  readonly settings: Readonly<Record<string, string | number>>
}

const LAYOUT = planFile('x', 'BTCUSDT-aggTrades-2024-01-01.csv', 'agg_trade_id').layout
const CSV = inputSettings(LAYOUT, true)
/** the import's one statement's source (stage-sql.ts `directSource`: every rule by `throwIf`), over the whole file */
const direct = (f: string): string =>
  directSource(LAYOUT, { file: f, gzip: false, header: true, bytes: fs.statSync(f).size }, sqlString, 4_194_304)
const CUSTOM = {
  format_custom_field_delimiter: ',',
  format_custom_row_before_delimiter: '',
  format_custom_row_after_delimiter: '\n',
  format_custom_row_between_delimiter: '',
  input_format_custom_detect_header: 0,
  input_format_with_names_use_header: 0,
  input_format_allow_errors_num: 0,
  input_format_allow_errors_ratio: 0
}

/** The one statement's strict CSV cells (as the import's `directInputSettings`: no quotes, no `\N` as 0). */
const CUSTOM_CSV = {
  ...CUSTOM,
  format_custom_escaping_rule: 'CSV',
  format_csv_allow_double_quotes: 0,
  input_format_null_as_default: 0
}
/** the bench's prepared TSV (dataset.ts): the engine ceiling's input, read as the `tsv_ceiling` candidate */
const TSV =
  "ts DateTime64(3, 'UTC'), exchange String, market String, symbol String, base String, quote String, side String, price Float64, qty Float64, trade_id String"
/** one aggTrades line: 7 cells, unquoted numbers, a bool word */
const LINE_RE = '([0-9]+),([0-9.eE+-]+),([0-9.eE+-]+),([0-9]+),([0-9]+),([0-9]+),([a-zA-Z]+)'

const CANDIDATES: Readonly<Record<string, Candidate>> = {
  csv: { from: (f) => `file(${sqlString(f)}, 'CSV', ${sqlString(TYPED)})`, settings: CSV },
  csv_serial: {
    from: (f) => `file(${sqlString(f)}, 'CSV', ${sqlString(TYPED)})`,
    settings: { ...CSV, input_format_parallel_parsing: 0 }
  },
  csv_one_thread: {
    from: (f) => `file(${sqlString(f)}, 'CSV', ${sqlString(TYPED)})`,
    settings: { ...CSV, max_threads: 1 }
  },
  csv_strings: {
    from: (f) =>
      `(SELECT toUInt64(c_agg_trade_id) AS c_agg_trade_id, toFloat64(c_price) AS c_price, toFloat64(c_quantity) AS c_quantity,
        toUInt64(c_first_trade_id) AS c_first_trade_id, toUInt64(c_last_trade_id) AS c_last_trade_id,
        toUInt64(c_transact_time) AS c_transact_time, c_is_buyer_maker FROM file(${sqlString(f)}, 'CSV', ${sqlString(STRINGS)}))`,
    settings: CSV
  },
  custom_raw: {
    from: (f) => `file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(TYPED)})`,
    settings: { ...CUSTOM, format_custom_escaping_rule: 'Raw' }
  },
  custom_csv: {
    from: (f) => `file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(TYPED)})`,
    settings: { ...CUSTOM, format_custom_escaping_rule: 'CSV', format_csv_allow_double_quotes: 0 }
  },
  custom_escaped: {
    from: (f) => `file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(TYPED)})`,
    settings: { ...CUSTOM, format_custom_escaping_rule: 'Escaped' }
  },
  custom_escaped_strict: {
    from: (f) => `file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(TYPED)})`,
    settings: { ...CUSTOM, format_custom_escaping_rule: 'Escaped', input_format_null_as_default: 0 }
  },
  csv_strict: {
    from: (f) => `file(${sqlString(f)}, 'CSV', ${sqlString(TYPED)})`,
    settings: { ...CSV, input_format_null_as_default: 0 }
  },
  csv_text_ints: {
    from: (f) =>
      `(SELECT assumeNotNull(toUInt64OrNull(t_agg_trade_id)) AS c_agg_trade_id, c_price, c_quantity,
        assumeNotNull(toUInt64OrNull(t_transact_time)) AS c_transact_time, c_is_buyer_maker
        FROM file(${sqlString(f)}, 'CSV', ${sqlString(TEXT_INTS)})
        WHERE throwIf(toUInt64OrNull(t_agg_trade_id) IS NULL OR toUInt64OrNull(t_first_trade_id) IS NULL
          OR toUInt64OrNull(t_last_trade_id) IS NULL OR toUInt64OrNull(t_transact_time) IS NULL, 'ints') = 0)`,
    settings: { ...CSV, input_format_null_as_default: 0 }
  },
  lines_strict: {
    from: (f) =>
      `(SELECT splitByChar(',', line) AS a, assumeNotNull(toUInt64OrNull(a[1])) AS c_agg_trade_id,
        assumeNotNull(toFloat64OrNull(a[2])) AS c_price, assumeNotNull(toFloat64OrNull(a[3])) AS c_quantity,
        assumeNotNull(toUInt64OrNull(a[6])) AS c_transact_time, a[7] AS c_is_buyer_maker
        FROM file(${sqlString(f)}, 'LineAsString', 'line String') WHERE _row_number > 0
          AND throwIf(length(a) != 7 OR toUInt64OrNull(a[1]) IS NULL OR toFloat64OrNull(a[2]) IS NULL
            OR toFloat64OrNull(a[3]) IS NULL OR toUInt64OrNull(a[4]) IS NULL OR toUInt64OrNull(a[5]) IS NULL
            OR toUInt64OrNull(a[6]) IS NULL, 'line') = 0)`,
    settings: {}
  },
  custom_csv_strict: {
    from: (f) => `file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(TYPED)})`,
    settings: CUSTOM_CSV
  },
  custom_text_ints: {
    from: (f) =>
      `(SELECT assumeNotNull(toUInt64OrNull(t_agg_trade_id)) AS c_agg_trade_id, c_price, c_quantity,
        assumeNotNull(toUInt64OrNull(t_transact_time)) AS c_transact_time, c_is_buyer_maker
        FROM file(${sqlString(f)}, 'CustomSeparatedWithNames', ${sqlString(TEXT_INTS)})
        WHERE throwIf(toUInt64OrNull(t_agg_trade_id) IS NULL OR toUInt64OrNull(t_first_trade_id) IS NULL
          OR toUInt64OrNull(t_last_trade_id) IS NULL OR toUInt64OrNull(t_transact_time) IS NULL, 'ints') = 0)`,
    settings: CUSTOM_CSV
  },
  custom_nullable_ints: {
    from: (f) => wideFrom(f, 'UInt64', '18446744073709551615'),
    settings: { ...CUSTOM_CSV, format_csv_null_representation: '' }
  },
  custom_u128_ints: {
    from: (f) => wideFrom(f, 'UInt128', '18446744073709551615'),
    settings: { ...CUSTOM_CSV, format_csv_null_representation: '' }
  },
  custom_dec_ints: {
    from: (f) => wideFrom(f, 'Decimal(20, 0)', '18446744073709551615'),
    settings: { ...CUSTOM_CSV, format_csv_null_representation: '' }
  },
  direct: {
    from: (f) => direct(f),
    settings: { ...directInputSettings(LAYOUT, true), ...DIRECT_READ_SETTINGS }
  },
  direct_as_csv: {
    from: (f) => direct(f).replace(`'CustomSeparatedWithNames'`, `'CSV'`),
    settings: { ...CSV, ...DIRECT_READ_SETTINGS }
  },
  regexp: {
    from: (_f, bare) => `file(${sqlString(bare)}, 'Regexp', ${sqlString(TYPED)})`,
    settings: {
      format_regexp: LINE_RE,
      format_regexp_escaping_rule: 'Raw',
      format_regexp_skip_unmatched: 0,
      input_format_allow_errors_num: 0
    }
  },
  lines_split: {
    from: (f) =>
      `(SELECT splitByChar(',', line) AS a, toUInt64(a[1]) AS c_agg_trade_id, toFloat64(a[2]) AS c_price,
        toFloat64(a[3]) AS c_quantity, toUInt64(a[4]) AS c_first_trade_id, toUInt64(a[5]) AS c_last_trade_id,
        toUInt64(a[6]) AS c_transact_time, a[7] AS c_is_buyer_maker
        FROM file(${sqlString(f)}, 'LineAsString', 'line String') WHERE _row_number > 0
          AND throwIf(length(a) != 7, 'columns') = 0)`,
    settings: {}
  }
}

async function main(): Promise<void> {
  const [csv, tsv, roundsText, only] = process.argv.slice(2) as [string, string, string?, string?]
  const rounds = Number(roundsText ?? 3)
  const names = only ? only.split(',') : ['tsv_ceiling', ...Object.keys(CANDIDATES)]
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-formats-'))
  // the same rows without the header line, for the candidates that cannot skip one (Regexp)
  const bare = path.join(dir, 'bare.csv')
  const text = fs.readFileSync(csv)
  fs.writeFileSync(bare, text.subarray(text.indexOf(10) + 1))
  const store = new ChdbStore({ path: path.join(dir, 'db'), poolSize: 1 })
  try {
    await store.command(
      `CREATE TABLE sink (ts DateTime64(3, 'UTC'), side Enum8('buy' = 1, 'sell' = 2), price Float64, qty Float64, trade_id String) ENGINE = Null`
    )
    const [{ n }] = (await store.query<{ n: number }>(
      `SELECT count() AS n FROM file(${sqlString(bare)}, 'LineAsString', 'line String')`
    )) as [{ n: number }]
    const rows = Number(n)
    const cpu: Record<string, number[]> = {}
    const rate: Record<string, number[]> = {}
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length]!
        const c = CANDIDATES[name]
        const t0 = performance.now()
        const cpu0 = process.cpuUsage()
        const sql =
          name === 'tsv_ceiling'
            ? `INSERT INTO sink SELECT ts, side, price, qty, trade_id FROM file(${sqlString(tsv)}, 'TSV', ${sqlString(TSV)})`
            : `INSERT INTO sink SELECT fromUnixTimestamp64Milli(toInt64(if(c_transact_time >= 100000000000000, intDiv(c_transact_time, 1000), c_transact_time)), 'UTC') AS ts,
            if(lower(c_is_buyer_maker) = 'true', 'sell', 'buy') AS side, c_price AS price, c_quantity AS qty,
            toString(c_agg_trade_id) AS trade_id FROM ${c!.from(csv, bare)}${settingsClause(c!.settings)}`
        const ok = await store.command(sql, { from_ms: 0, to_ms: 4_102_444_800_000 }).then(
          () => true,
          (err: unknown) => (console.log(`${name}: refused the file: ${String(err).split('\n')[0]}`), false)
        )
        if (!ok) continue
        const ms = performance.now() - t0
        const u = process.cpuUsage(cpu0)
        ;(rate[name] ??= []).push(Math.round((rows * 1000) / ms))
        ;(cpu[name] ??= []).push(Math.round((u.user + u.system) / 1e4) / 100)
        console.log(
          `round ${r + 1} ${name}: ${rate[name]!.at(-1)} rows/s, ${cpu[name]!.at(-1)} CPU-s (load ${os.loadavg()[0]!.toFixed(1)})`
        )
      }
    }
    for (const name of names.filter((n) => rate[n]))
      console.log(`${name}: median ${median(rate[name]!)} rows/s, ${median(cpu[name]!)} CPU-s`)
  } finally {
    await store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

void main()
