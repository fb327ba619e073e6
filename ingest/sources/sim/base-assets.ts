/**
 * @module
 * The simulated base assets: real tickers with plausible USD reference prices (order of magnitude of
 * 2024-2025), ranked roughly by derivatives volume. Rank drives liquidity: the first `TOP_BASE_COUNT`
 * trade densely, open interest falls off with rank. The table is data, not code: one `TICKER price` pair
 * per entry, whitespace separated, so 190 assets fit on a page.
 */

/** how many leading assets count as "top" (dense trades, on-chain metrics, listed on every venue) */
export const TOP_BASE_COUNT = 10

const TABLE = `
BTC 100000  ETH 3500  SOL 200  XRP 2.3  BNB 680  DOGE 0.32  ADA 0.9  AVAX 35  LINK 20  SUI 4
TRX 0.25  TON 5.5  DOT 6.5  LTC 100  BCH 430  SHIB 0.000021  PEPE 0.000018  NEAR 5  APT 9  UNI 13
ICP 10  ETC 26  HBAR 0.28  FIL 5  ATOM 6.5  ARB 0.75  OP 1.9  INJ 23  RENDER 7  IMX 1.4
STX 1.7  SEI 0.45  TIA 5  WIF 2  BONK 0.00003  FET 1.3  AAVE 320  MKR 1600  LDO 1.8  CRV 0.9
GRT 0.2  ALGO 0.35  VET 0.045  XLM 0.42  EOS 0.8  XTZ 1.2  SAND 0.55  MANA 0.5  AXS 6.5  GALA 0.035
APE 1.2  FLOW 0.75  CHZ 0.09  EGLD 35  THETA 2  KAVA 0.45  ZEC 55  DASH 35  NEO 13  QNT 110
RUNE 4.5  SNX 2  COMP 75  YFI 7500  SUSHI 1.2  1INCH 0.4  ENS 30  DYDX 1.5  GMX 25  PENDLE 5
JUP 0.9  PYTH 0.35  JTO 3  W 0.3  ENA 0.8  ETHFI 2  ONDO 1.4  WLD 2.3  ORDI 30  STRK 0.5
MANTA 0.6  DYM 2  ALT 0.12  ZK 0.18  ZRO 5  NOT 0.007  IO 2  BOME 0.008  FLOKI 0.00018  POPCAT 0.8
MEW 0.008  BRETT 0.13  TURBO 0.008  NEIRO 0.0015  GOAT 0.5  PNUT 0.6  ACT 0.3  HYPE 25  VIRTUAL 2.5  AI16Z 0.8
TRUMP 20  MOVE 0.6  ME 4  USUAL 0.6  PENGU 0.03  KAIA 0.2  S 0.6  BERA 6  IP 5  KAITO 1.5
LAYER 1.2  TAO 450  AR 18  KAS 0.12  POL 0.45  CFX 0.17  ROSE 0.08  CELO 0.7  ZIL 0.02  ONE 0.02
IOTA 0.28  IOTX 0.04  ANKR 0.03  ICX 0.2  ONT 0.25  QTUM 3.5  ZRX 0.5  BAT 0.22  ENJ 0.25  LRC 0.2
STORJ 0.5  SKL 0.05  CELR 0.015  RVN 0.02  HOT 0.002  BLUR 0.3  MAGIC 0.5  GMT 0.15  API3 1.5  RSR 0.012
BAND 1.4  AGLD 1.5  CYBER 3  ARKM 1.8  ID 0.35  EDU 0.6  HOOK 0.5  HIGH 1.5  LQTY 1.3  RDNT 0.06
SSV 25  RPL 12  FXS 3  CVX 4  BAL 2.5  UMA 2.8  MASK 3  TRB 80  LPT 14  KSM 30
MINA 0.6  ASTR 0.07  GLM 0.45  WOO 0.2  XAI 0.3  AEVO 0.4  PORTAL 0.4  PIXEL 0.15  OM 6  ALICE 1.2
C98 0.15  DENT 0.0012  JASMY 0.035  LUNC 0.0001  LUNA 0.4  USTC 0.02  GAS 4  ACH 0.03  CKB 0.012  COTI 0.1
DUSK 0.2  ILV 30  SUPER 1  TWT 1  VANRY 0.1  AUCTION 25  BIGTIME 0.15  MEME 0.02  RAY 5  DRIFT 1
`

export interface BaseListing {
  readonly ticker: string
  /** reference price, USD per coin: the centre the simulated price path reverts to */
  readonly refPrice: number
}

function parseTable(text: string): BaseListing[] {
  const words = text.split(/\s+/).filter((w) => w.length > 0)
  const out: BaseListing[] = []
  for (let i = 0; i + 1 < words.length; i += 2) out.push({ ticker: words[i]!, refPrice: Number(words[i + 1]) })
  return out
}

/** all base assets in rank order (index 0 = BTC) */
export const BASE_LISTINGS: readonly BaseListing[] = parseTable(TABLE)
