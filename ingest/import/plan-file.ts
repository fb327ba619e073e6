/**
 * @module
 * Decides what a file is from its name and first line: a data.binance.vision file (the name carries the
 * symbol and data type) or a Tardis.dev file (the header tells the data type; rows carry the market).
 */
import path from 'node:path'
import type { Params } from '../../engine/store/store.js'
import { binanceLayout, parseBinanceName } from './binance-vision.js'
import type { CsvLayout } from './csv-layout.js'
import type { ScanTotals } from './csv-scan.js'
import { ImportError } from './import-error.js'
import { marketsWithoutFundingInterval, multiMarketParams, singleMarketParams } from './market.js'
import { looksLikeTardis, tardisLayout } from './tardis.js'

export interface FilePlan {
  readonly source: 'binance' | 'tardis'
  readonly layout: CsvLayout
  /** bound parameters, once the scan's totals are known (multi-market files learn their markets there) */
  params(totals: ScanTotals): Params
  /** what the user should know about how the file was read (shown with the file's summary) */
  notes(totals: ScanTotals): string[]
}

/** Markets named in a note before it says "and N more". */
const NOTE_MARKETS = 10

function fundingNotes(totals: ScanTotals): string[] {
  const missing = marketsWithoutFundingInterval(totals.funding)
  if (missing.length === 0) return []
  const shown = missing.slice(0, NOTE_MARKETS).join(', ')
  const more = missing.length > NOTE_MARKETS ? ` and ${missing.length - NOTE_MARKETS} more` : ''
  return [
    `funding interval not shown by the file (fewer than two distinct funding_timestamp values), stored as 8 h: ${shown}${more}`
  ]
}

export function planFile(label: string, file: string, firstLine: string, market?: 'perp' | 'spot'): FilePlan {
  const name = path.basename(file)
  if (looksLikeTardis(firstLine)) {
    const layout = tardisLayout(firstLine)
    if (!layout) {
      throw new ImportError(
        label,
        1,
        `a Tardis.dev header of a type not imported (trades, derivative_ticker and options_chain are): ${firstLine.slice(0, 200)}`
      )
    }
    return {
      source: 'tardis',
      layout,
      notes: fundingNotes,
      params: ({ markets, funding }) => {
        const ids = new Set([...markets].map((k) => k.split('\t')[0]))
        if (layout.targets[0]!.table === 'option_quotes' && [...ids].some((id) => id !== 'deribit')) {
          throw new ImportError(
            label,
            0,
            `options_chain is imported for deribit only; the file holds ${[...ids].join(', ')}`
          )
        }
        return multiMarketParams(label, markets, funding)
      }
    }
  }
  const binance = parseBinanceName(name)
  if (binance) {
    const { layout, params } = binanceLayout(label, binance, firstLine, market)
    return { source: 'binance', layout, params: () => singleMarketParams(params), notes: () => [] }
  }
  throw new ImportError(
    label,
    0,
    'not a known file: data.binance.vision names look like BTCUSDT-aggTrades-2024-01-01.zip, Tardis.dev files start with the header exchange,symbol,timestamp,local_timestamp,...'
  )
}
