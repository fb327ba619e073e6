/**
 * @module
 * Decides what a file is from its name and first line: a data.binance.vision file (the name carries the
 * symbol and data type) or a Tardis.dev file (the header tells the data type; rows carry the market).
 */
import path from 'node:path'
import { DEFAULT_FUNDING_INTERVAL_HOURS } from '../../engine/records/types.js'
import type { Params } from '../../engine/store/store.js'
import { binanceLayout, parseBinanceName } from './binance-vision.js'
import type { CsvLayout } from './csv-layout.js'
import type { ScanTotals } from './csv-scan.js'
import { ImportError } from './import-error.js'
import { contractSizedMarkets, marketsWithoutFundingInterval, multiMarketParams, singleMarketParams } from './market.js'
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

/** `a, b, c and 7 more` */
function listMarkets(markets: readonly string[]): string {
  const more = markets.length > NOTE_MARKETS ? ` and ${markets.length - NOTE_MARKETS} more` : ''
  return markets.slice(0, NOTE_MARKETS).join(', ') + more
}

/** Why sizes of OKX markets cannot be stored (Tardis keeps OKX's contract counts; ctVal is not in the file). */
const CONTRACTS_REASON =
  'Tardis gives OKX sizes in contracts as OKX sends them, and the contract value (ctVal × ctMult) is not in the file'

function fundingNotes(totals: ScanTotals): string[] {
  const missing = marketsWithoutFundingInterval(totals.funding)
  if (missing.length === 0) return []
  return [
    `funding interval not shown by the file (fewer than two distinct funding_timestamp values), stored as ${DEFAULT_FUNDING_INTERVAL_HOURS} h: ${listMarkets(missing)}`
  ]
}

/** derivative_ticker: funding of OKX markets is stored, their open interest (contracts) is not. */
function contractNotes(totals: ScanTotals): string[] {
  const okx = contractSizedMarkets(totals.markets)
  if (okx.length === 0) return []
  return [`open interest not imported (${CONTRACTS_REASON}): ${listMarkets(okx)}`]
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
    const table = layout.targets[0]!.table
    return {
      source: 'tardis',
      layout,
      notes: (totals) => (table === 'funding' ? [...fundingNotes(totals), ...contractNotes(totals)] : []),
      params: ({ markets, funding }) => {
        const ids = new Set([...markets].map((k) => k.split('\t')[0]))
        if (table === 'option_quotes' && [...ids].some((id) => id !== 'deribit')) {
          throw new ImportError(
            label,
            0,
            `options_chain is imported for deribit only; the file holds ${[...ids].join(', ')}`
          )
        }
        const okx = contractSizedMarkets(markets)
        if (table === 'trades' && okx.length > 0) {
          throw new ImportError(label, 0, `trades of ${listMarkets(okx)} are not imported: ${CONTRACTS_REASON}`)
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
