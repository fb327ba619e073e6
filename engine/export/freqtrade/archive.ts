/**
 * @module
 * The freqtrade layout's tar archive, entry by entry: the `futures/` directory, one feather file per pair
 * and candle type as each completes, and last the manifest, which lists every file with its SHA-256 (of
 * the bytes as they went out), row count, first and last row and gaps. One file's bytes are held until it
 * is framed (its size goes in its tar header): at most one pair's rows of one timeframe.
 */
import { createHash } from 'node:crypto'
import type { FeatherBytes } from './feather-file.js'
import type { Gap } from './gaps.js'
import type { FreqtradeCandleType } from './names.js'
import { TAR_END, tarHeader, tarPadding } from './tar.js'

/** Content-Type of the archive. */
export const FREQTRADE_ARCHIVE_TYPE = 'application/x-tar'
/** Version of the manifest's shape; raised when a field changes meaning or goes away. */
export const FREQTRADE_MANIFEST_VERSION = 1
/** The manifest's path in the archive (freqtrade reads only `*.feather` files: it is left alone). */
export const FREQTRADE_MANIFEST = 'tidewatch-manifest.json'

export interface ManifestFile {
  /** path inside the data directory, e.g. `futures/BTC_USDT_USDT-1h-futures.feather` */
  readonly path: string
  /** the CCXT pair freqtrade names the market by, e.g. `BTC/USDT:USDT` */
  readonly pair: string
  /** the stored market: exchange-native symbol */
  readonly symbol: string
  readonly candle_type: FreqtradeCandleType
  readonly timeframe: string
  readonly rows: number
  readonly bytes: number
  /** hex SHA-256 of the file */
  readonly sha256: string
  /** `date` of the first and last row, epoch ms; null without rows */
  readonly first: number | null
  readonly last: number | null
  readonly gaps: readonly Gap[]
}

export interface ManifestHead {
  readonly exchange: string
  readonly timeframe: string
  /** the exported range `[start, end)`, epoch ms */
  readonly start: number
  readonly end: number
  /** the rows are synthetic (demo market) */
  readonly synthetic: boolean
}

export class FreqtradeArchive {
  readonly files: ManifestFile[] = []

  constructor(private readonly mtimeS: number) {}

  /** The `futures/` directory entry. */
  directory(): Uint8Array {
    return tarHeader('futures/', 0, this.mtimeS, '5')
  }

  /** The chunks of one file entry (header, bytes, padding); records it for the manifest. */
  file(entry: Omit<ManifestFile, 'rows' | 'bytes' | 'sha256'>, feather: FeatherBytes): Uint8Array[] {
    const hash = createHash('sha256')
    for (const c of feather.chunks) hash.update(c)
    this.files.push({ ...entry, rows: feather.rows, bytes: feather.size, sha256: hash.digest('hex') })
    return [tarHeader(entry.path, feather.size, this.mtimeS), ...feather.chunks, tarPadding(feather.size)]
  }

  /** The manifest entry and the end of the archive. */
  end(head: ManifestHead): Uint8Array[] {
    const manifest = Buffer.from(
      JSON.stringify(
        {
          manifest_version: FREQTRADE_MANIFEST_VERSION,
          layout: 'freqtrade',
          trading_mode: 'futures',
          data_format: 'feather',
          ...head,
          files: this.files
        },
        null,
        1
      ) + '\n'
    )
    return [tarHeader(FREQTRADE_MANIFEST, manifest.length, this.mtimeS), manifest, tarPadding(manifest.length), TAR_END]
  }
}
