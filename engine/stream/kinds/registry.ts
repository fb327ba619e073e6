/**
 * @module
 * Every channel kind of the push stream, one per channel type. The order is the order of the
 * `unknown_channel` message's list, of record routing within a batch and of the kinds' ticks.
 */
import { candlesKind } from './candles.js'
import { confirmKind } from './confirm.js'
import { fundingKind } from './funding.js'
import { optionsKind } from './options.js'
import { screenerKind } from './screener.js'
import { signalsKind } from './signals.js'
import { tradesKind } from './trades.js'
import { whalesKind } from './whales.js'
import { newPairsKind } from './newpairs.js' // node intelligence
import { tokenRiskKind } from './tokenrisk.js' // node intelligence

export const CHANNEL_KINDS = [
  tradesKind,
  candlesKind,
  fundingKind,
  screenerKind,
  optionsKind,
  whalesKind,
  confirmKind,
  signalsKind,
  newPairsKind, // node intelligence
  tokenRiskKind // node intelligence
] as const
