/**
 * @module
 * The engine's known exchange hot wallets, per chain: a whale transfer whose counterparty is one of these is
 * a deposit to (whale -> exchange: exchange inflow) or a withdrawal from (exchange -> whale: exchange
 * outflow) that exchange. The list holds the demo market's labelled hot wallets (the simulator sends to
 * and from exactly these addresses, ingest/sources/sim/whale-wallets.ts); a real deployment extends it
 * with the hot wallets of the exchanges it tracks (lower-case hex for EVM chains, base58 for Solana).
 */
import type { Chain } from '../records/types.js'

export interface LabelledAddress {
  readonly address: string
  /** exchange name and wallet number, e.g. `Binance 1` */
  readonly label: string
}

/** exchange, first hot wallet, second hot wallet (labelled `<exchange> 1` and `<exchange> 2`) */
type HotPair = readonly [exchange: string, first: string, second: string]

const labelled = (pairs: readonly HotPair[]): readonly LabelledAddress[] =>
  Object.freeze(
    pairs.flatMap(([exchange, first, second]) => [
      { address: first, label: `${exchange} 1` },
      { address: second, label: `${exchange} 2` }
    ])
  )

/**
 * Labelled exchange hot wallets by chain, in label order (Binance 1, Binance 2, Coinbase 1, ...): the chains
 * the demo market simulates. A chain of the catalog without an entry here has no demo hot wallets.
 */
const HOT_WALLETS = {
  ethereum: labelled([
    ['Binance', '0x903df65bfecf74b0cfccc38d1b565b75f5305668', '0xb82d4e1ed27fb1c36334ee2506e88b24f3cfd3ff'],
    ['Coinbase', '0xd927d03fc9fb22014afbd7391c1cb792d1e1ea32', '0x1215ed06299721a97d6a07a1a6ac6b45b568a01e'],
    ['OKX', '0x7a73eea608021c7bdcc690b0874ff77ae248f1ab', '0x7e98dcd9d743bf9ea6a1ff4493cb2e551f66db75'],
    ['Bybit', '0xce77857dc3d25562789ae43349a43f0cb38f14a6', '0x52a6e7291a56764bed1250f339c5867cd93e121b'],
    ['Kraken', '0xac4be1ebc6da6c9185230d5525f932e2f77253e8', '0x7b5e49793b3679b1c63f836fbe4ed64e0fe85824'],
    ['Bitfinex', '0xbb818b8ec06bb21e17bf63dd58eb903c18a4d07b', '0xfab265de475172ebe1581f5db461377923dea0a4'],
    ['KuCoin', '0x09eaeb4eeafd65e2bedd25a2cddcab3715163d12', '0x75827e9f0389def1bb708828bb2b3d8557f15e36'],
    ['Gate', '0x83cc38ff8e8c5b11d9ff871a66892c802cdea9e1', '0x87a13f93d3a7332a7e58ce597e8c1ad4a97984d6']
  ]),
  bsc: labelled([
    ['Binance', '0x0b137944191346b15bf8adc91451eefee365784e', '0x27380381fb0f635d68b3909f78d10dc72c0a6e83'],
    ['Coinbase', '0x621da72ffa0c2293080d81ab6d90e7a1561d70b4', '0x90ca24be805c0d21ef489c7eac28bd0f23c22c53'],
    ['OKX', '0xdb74739a2adf071b2f79b3750360bf462db5b107', '0xe0714dd620e4e61e2fa646789ac6f36ac1a51b53'],
    ['Bybit', '0x40e241cb31abbf5db4971dd2be47095d20f39f9c', '0x19a4fdccacf02410b3e942bd61a9b3b9927091f1'],
    ['Kraken', '0xf145780e87013e9404f5fb6dfa4041cb711c09ea', '0x3a5027a6ad326317eebd40405cfef207b610bb7a'],
    ['Bitfinex', '0xf1e73208c2ab6a0433eee22d5b2e4b59d0f16484', '0xb490039ba840f9639f3025f39d2548b1c871637f'],
    ['KuCoin', '0x455262643cd9c2ff67ca06083be1d4a707143622', '0xc12472710f74982cb39ca8615de2c982103eff55'],
    ['Gate', '0xe2ff4b8900cee900b23e7a8c0ec77276f5b43a91', '0x3d50f07cb0130964afe2ff7b5d9f74e4f0ab0528']
  ]),
  avalanche: labelled([
    ['Binance', '0xb98f2fe6ffd40738f7091e88f1a878b24ab31c95', '0x5c8b6a92e75be81d9d0efe393a08210057544920'],
    ['Coinbase', '0x24e585cc15492f50e6f2b49b10c804ea75b21d84', '0xd87d0e6d033e491d8c65dcc41229cc607a7c1a0d'],
    ['OKX', '0x5d5d8c9b3de4c1081249e1fe4d166f4f6953c66d', '0x88f513caeae3fd0dc39cd721839fe0bf908f60eb'],
    ['Bybit', '0x1a823ce13be7c625e0b8861126f480ab6cb669fd', '0x171cb461f57a50467e758549b61300c5edfbf887'],
    ['Kraken', '0x587358be2f783fa83f3cffc533b26b406085924e', '0x56f6639b0fffe044235a4ed9e01af55ee5bead4b'],
    ['Bitfinex', '0x5e29bae81239075c0835442bfaaffbbb8085f064', '0xff66fa275c26ec5851a275912a353cefcf097565'],
    ['KuCoin', '0x0a7247c72fdf28cf5eceab095a5f1a91bddce11c', '0x60daa85dd638d48dd8adc87c0036848473732d38'],
    ['Gate', '0x267b9478be8d4ec1233f0041f4692ace60b52029', '0x844a54113a97b162ca1a06a92a09dc6d1ab28ec9']
  ]),
  polygon: labelled([
    ['Binance', '0x44cb0d0ad2ae77aee83c9174f2ef10b161650419', '0x11d3b39673eb30f7946671a2ae8395eefd13fe8b'],
    ['Coinbase', '0x2aa43ef08b94cddd82e89fd0fd41bc45949d231d', '0x45d4ea68ca29ca01f66fa453c7ff1371fc0f366f'],
    ['OKX', '0xac4c219f9cde5eae247adc5dc0fa7933ef391605', '0xef828c581a47cbdc3b1ee0586bf8418e0a7a0982'],
    ['Bybit', '0x69fa805435e9caf735c154ee6b18a67a39277cca', '0x20c233f465bbdc2761039e525f2b6968e2cdc157'],
    ['Kraken', '0x8125f23eb539f9bb144abd912863465590c43e82', '0xf0d53c769fc8c81405d1f0e3c8e077e00549a69a'],
    ['Bitfinex', '0xbb59cb9199aabe03738dfe65eb5a2cdfbe164c19', '0x560400182a664a22397d9d0e154012b308cc939a'],
    ['KuCoin', '0xde4ff75795067800489e791db076225654e4b03f', '0xf9287906f5ba8184d56528f18000b74873bce576'],
    ['Gate', '0xfe9fbed70f8acbc10c28c5387b7e8a7ce6f44203', '0xc0b10d697b02b2d756d9742d16e3b4bb18345522']
  ]),
  arbitrum: labelled([
    ['Binance', '0x3bfc685ead9d196a5e67b77035a2cac4c0df6645', '0xfbab9aa1d7184cf6d290f0405eae9abedb427362'],
    ['Coinbase', '0x3e741f54094ca6caf9eaae721d543c885edf122b', '0x9ecd9ff599914f1f9c73b170a60867fceef28fbe'],
    ['OKX', '0xfb05989712626edf275e55c0f93053d0daa113ed', '0xe0f25b12ff4edc4b4ddbe65dfff95238d444129d'],
    ['Bybit', '0x21d83591380c3caa476f1be717676211a7bc9b27', '0x31b9c28dfeaffcd478ad4ea0fbf613b83fc04238'],
    ['Kraken', '0xcf8b9b7d999d62c3cc18daeab883297da5e7dde5', '0x8e62a8491e001e6c7c718957cb26440b9d1c87f8'],
    ['Bitfinex', '0x217cbe751fc587eb5d6547e51f93a515c9f38d76', '0x67c5e7266746320f501d984565cc35e7b1ea1dbe'],
    ['KuCoin', '0x79ae9a594e8f1973b87a123a1620735472d30cff', '0x8c5b7a01a38a5e11c18433a0913100f4f22b27b2'],
    ['Gate', '0xe0c7ba4415a65e9bb3f5f9c520c6be88e2a5e2c5', '0x717c142623ec139095658abdd5d38a36ad74e6a1']
  ]),
  base: labelled([
    ['Binance', '0x6b6386da41ae95ddf9ab408b628c62ed8d78c9e0', '0xf5016b7062f452f3e16d0a2e13859a512743b37b'],
    ['Coinbase', '0xcbc6d583f6c273448aac1d1a433d4fcdfc2b7a2d', '0x2c34d9b72a155831baa68c06c3d97a4fe5b6a4bd'],
    ['OKX', '0x6782b616af4202a0adab128f91364a37fd870b84', '0x3e7a473c56d3441f3a1a4bd68afa2efbb4c15b46'],
    ['Bybit', '0xb468fa1f9c30a0b39c32110f528d63378e879c9b', '0x79c16495f6c664e670a2995b5f1cb1c0d9ce6265'],
    ['Kraken', '0xebfe8d4e9acd019bf926c48f1db4016ced4bdb09', '0xfe93a44c0c8e5380f8800c6918c5f9ab52166158'],
    ['Bitfinex', '0x34899071995b3fdff61c4b97cdea1d8e196a20ea', '0xe72d096de7d0c355e3afbe8f371603c3e4270e63'],
    ['KuCoin', '0x6d7e0ec08a98ce1ac1a88ca57ad8564021d6e415', '0xd4fc349bd7f0f4ffd340e4317c4d9fc153ebd5e5'],
    ['Gate', '0x8b6e6a0848c4dbd067ea6bbfd9be46f6b27addec', '0x94e9c6a39885223d91f5a4f0cc3e42f1f82559e9']
  ]),
  optimism: labelled([
    ['Binance', '0x3e1dc5942d5ea789f89150479a08fc37e205d72c', '0x63baaa0b2444d5f753a4b2de617d1f1df43489fb'],
    ['Coinbase', '0x034f9d0c14c981124d61f988f0e640be6f875396', '0xc915f3f31b5199fdec0e76a5c0e5ce040388587d'],
    ['OKX', '0xae353b9bf66d4e1d0daef19795e7e4f913be0ee6', '0x18ff79cc4b8716aab4477c4a83cf3790c3f0f0cb'],
    ['Bybit', '0x03b316de818b0f653bead02acf76314d5708359a', '0x19688f20602508d0829d7060e7a45e7c8fa888be'],
    ['Kraken', '0x621fe8600269e9515a1f18491a66ec972a8ca45f', '0x55b7344f70a82bf48be66eefe755d9ed0c0aae46'],
    ['Bitfinex', '0xfb55d5ca8c272e0945e6f0af306238246b0c817b', '0x528cafb1eebb2169c0f12c4db784f8a9788386ed'],
    ['KuCoin', '0x0081de99085f889d87358af6e0766388e30b5df4', '0x483c27818fdfded5009ede5aca0a0938120b34c9'],
    ['Gate', '0x34238f7331d5d45419111193ee4a571b50f5c3c0', '0x2020d585bc8dc9079923f3d054a804acf0e3f29e']
  ]),
  solana: labelled([
    ['Binance', 'H3KHPScxdM48Fe1scktZpTtBtciYQkXRYHXqU6aJaLaT', 'BCApTtwsSXmhoMRqCc4YJiQx2x4h421paEVCEw3zF1WR'],
    ['Coinbase', 'HsQBVSHAuTpCi9NJYfDPhhBFAUJjTcDCfSiw4RDTaULr', 'AkfmrRQJXaadc8wquMSfxFUMxaDw3LhNW1CtttE1nUsT'],
    ['OKX', 'AQUFBmuGCxP3uk1jAJj8Nh1k1tSwRsvnawk25hhrgqy7', '9fEbMrfbc7zWKRxcb9BG5CbLo7iMD2GSMRuQzsrZaQe2'],
    ['Bybit', 'Cp63X9pxiLtskwvmzj7Q8zxn3e4sQMJM96P1fhJhdMwt', 'GuxtS8yW4ULA2DNV1HkYz6itoeWmkSpWW7sezYQZFkvh'],
    ['Kraken', 'CrZ2Ffut9mBvB93Ywjn8x7tCMVXtNpnANx2YKDY6bxL1', 'HMxRdCiTwEKdJRrAzjKoUG2mUFUoJJvT9VyChmQyCwH3'],
    ['Bitfinex', 'EEaJWpMQ9vU1y2o6QSfgCWfouSoNck8MAmGd9f9aVN2z', 'Gz56ieUZrCsVKUKusv2QXa3oUeXmyfAGyvgiEEKF1QVs'],
    ['KuCoin', 'HAcCFKNU5dpao4JpFbeisVAyL5nVfLYuLvLL3DcBePEP', 'AfxLRzE7MThdh4QSn94k6uazdNQzMn4FpJGY1NZEE4HG'],
    ['Gate', 'J6ib9dRwbjZ67rxY1AbrfLvE329RwPehtWZtM3dZX8SN', 'DgHFAHWMCRbPpvG6fPtxHzCF96rw2P9VbPJnNLN4Ff7T']
  ])
} satisfies Partial<Record<Chain, readonly LabelledAddress[]>>

/** A chain with demo hot wallets (ingest/sources/sim/whale-wallets.ts simulates these). */
export type DemoChain = keyof typeof HOT_WALLETS

export const EXCHANGE_HOT_WALLETS: Readonly<Record<DemoChain, readonly LabelledAddress[]>> = HOT_WALLETS

/** Every labelled hot-wallet address on any chain (for `counterparty IN ...` filters). */
export const EXCHANGE_HOT_WALLET_ADDRESSES: readonly string[] = Object.freeze(
  Object.values(EXCHANGE_HOT_WALLETS).flatMap((list) => list.map((w) => w.address))
)

/** exchange wallets of the watch list (docs/watchlists.md), set at start and on every reload */
let watchedExchanges: ReadonlyArray<{ readonly address: string; readonly owner: string }> = []
/** every exchange address: the demo hot wallets and the watch list's (rebuilt with the list) */
let exchangeAddressSet: ReadonlySet<string> = new Set(EXCHANGE_HOT_WALLET_ADDRESSES)

/** Replaces the watch list's exchange wallets (server/modules/chain-sources.ts calls it on every load). */
export function setWatchedExchangeWallets(
  list: ReadonlyArray<{ readonly address: string; readonly owner: string }>
): void {
  watchedExchanges = Object.freeze(list.map((w) => ({ address: w.address, owner: w.owner })))
  exchangeAddressSet = new Set([...EXCHANGE_HOT_WALLET_ADDRESSES, ...watchedExchanges.map((w) => w.address)])
}

/**
 * True for a labelled exchange wallet (the demo hot wallets, the watch list's `exchange` entries; EVM
 * addresses lower-case). An exchange's own transfers are exchange flows, not a whale's: the confirmation
 * model's whale inputs leave them out (engine/live/whale-window.ts).
 */
export function isExchangeWallet(address: string): boolean {
  return exchangeAddressSet.has(address)
}

/**
 * Every labelled exchange address now (what `isExchangeWallet` tests): a new set object whenever the
 * watch list is loaded, so a figure computed with one set is known stale by the set's identity.
 */
export function exchangeWalletSet(): ReadonlySet<string> {
  return exchangeAddressSet
}

/**
 * Every labelled exchange address with its owner (the exchange): the demo hot wallets above (`Binance 1`
 * → `Binance`), then the watch list's. Two wallets of one owner transfer `internal`ly: not an exchange flow.
 */
export function exchangeOwners(): { readonly addresses: string[]; readonly owners: string[] } {
  const addresses: string[] = []
  const owners: string[] = []
  for (const list of Object.values(EXCHANGE_HOT_WALLETS)) {
    for (const w of list) {
      addresses.push(w.address)
      owners.push(w.label.replace(/ \d+$/, ''))
    }
  }
  for (const w of watchedExchanges) {
    addresses.push(w.address)
    owners.push(w.owner)
  }
  return { addresses, owners }
}
