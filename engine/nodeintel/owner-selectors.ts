/**
 * @module
 * The owner-power table: 4-byte selectors of functions that let a token's owner change how it trades,
 * by the names real tokens use, with the group each belongs to and where the name comes from. The scan
 * (bytecode.ts) looks them up among the selectors the code dispatches on; risk.ts turns groups into
 * factors. The selectors are keccak256 of the signature (test/unit/nodeintel-owner-selectors.test.ts
 * recomputes each one with viem and checks the table in docs/node-intel.md against this one).
 */

/** What an owner can do with a function of the group. */
export type SelectorGroup =
  | 'owner'
  | 'mint'
  | 'pause'
  | 'blacklist'
  | 'fee_setter'
  | 'fee_exclusion'
  | 'max_tx'
  | 'cooldown'
  | 'trading_switch'
  | 'contract_switch'
  | 'upgrade'

/**
 * How a group is named in reasons and risk evidence (plural: a group usually has several functions), in
 * the order reasons list them: what can stop or tax a sale first, the owner functions last.
 */
export const GROUP_LABELS: Readonly<Record<SelectorGroup, string>> = {
  blacklist: 'blacklist functions',
  fee_setter: 'fee setters',
  fee_exclusion: 'fee exclusion',
  max_tx: 'transaction / wallet limits',
  cooldown: 'cooldowns',
  trading_switch: 'trading switches',
  pause: 'pause functions',
  contract_switch: 'contract transfer switches',
  mint: 'mint functions',
  upgrade: 'upgrade functions',
  owner: 'owner functions'
}

/** Where a signature was taken from (described in docs/node-intel.md, "Owner-power functions"). */
export type SelectorSource = 'erc' | 'usdt' | 'safemoon' | 'stealth' | 'limits' | 'reward' | 'corpora' | 'eip1967'

export interface OwnerSelector {
  /** 8 hex digits, lowercase, no 0x */
  readonly selector: string
  /** canonical signature: name and parameter types, no spaces */
  readonly signature: string
  readonly group: SelectorGroup
  readonly source: SelectorSource
}

type Row = readonly [selector: string, signature: string, group: SelectorGroup, source: SelectorSource]

const ROWS: readonly Row[] = [
  ['8da5cb5b', 'owner()', 'owner', 'erc'],
  ['893d20e8', 'getOwner()', 'owner', 'erc'],
  ['715018a6', 'renounceOwnership()', 'owner', 'erc'],
  ['f2fde38b', 'transferOwnership(address)', 'owner', 'erc'],
  ['40c10f19', 'mint(address,uint256)', 'mint', 'erc'],
  ['a0712d68', 'mint(uint256)', 'mint', 'erc'],
  ['8456cb59', 'pause()', 'pause', 'erc'],
  ['3f4ba83a', 'unpause()', 'pause', 'erc'],
  ['5c975abb', 'paused()', 'pause', 'erc'],
  ['f9f92be4', 'blacklist(address)', 'blacklist', 'corpora'],
  ['44337ea1', 'addToBlacklist(address)', 'blacklist', 'corpora'],
  ['537df3b6', 'removeFromBlacklist(address)', 'blacklist', 'corpora'],
  ['0ecb93c0', 'addBlackList(address)', 'blacklist', 'usdt'],
  ['e4997dc5', 'removeBlackList(address)', 'blacklist', 'usdt'],
  ['153b0d1e', 'setBlacklist(address,bool)', 'blacklist', 'corpora'],
  ['68092bd9', 'setBlackList(address,bool)', 'blacklist', 'corpora'],
  ['0e85d1e3', 'setBlacklist(address[],bool)', 'blacklist', 'corpora'],
  ['f3290d75', 'blacklistAddress(address)', 'blacklist', 'corpora'],
  ['455a4396', 'blacklistAddress(address,bool)', 'blacklist', 'limits'],
  ['fe575a87', 'isBlacklisted(address)', 'blacklist', 'corpora'],
  ['b515566a', 'setBots(address[])', 'blacklist', 'stealth'],
  ['d34628cc', 'addBots(address[])', 'blacklist', 'stealth'],
  ['273123b7', 'delBot(address)', 'blacklist', 'stealth'],
  ['31c2d847', 'delBots(address[])', 'blacklist', 'stealth'],
  ['00b8cf2a', 'blockBots(address[])', 'blacklist', 'stealth'],
  ['6b999053', 'unblockBot(address)', 'blacklist', 'stealth'],
  ['342aa8b5', 'setBot(address,bool)', 'blacklist', 'corpora'],
  ['69fe0e2d', 'setFee(uint256)', 'fee_setter', 'corpora'],
  ['52f7c988', 'setFee(uint256,uint256)', 'fee_setter', 'corpora'],
  ['0b78f9c0', 'setFees(uint256,uint256)', 'fee_setter', 'corpora'],
  ['cec10c11', 'setFees(uint256,uint256,uint256)', 'fee_setter', 'corpora'],
  ['c4081a4c', 'setTaxFee(uint256)', 'fee_setter', 'corpora'],
  ['061c82d0', 'setTaxFeePercent(uint256)', 'fee_setter', 'safemoon'],
  ['8ee88c53', 'setLiquidityFeePercent(uint256)', 'fee_setter', 'safemoon'],
  ['0cc835a3', 'setBuyFee(uint256)', 'fee_setter', 'corpora'],
  ['8b4cee08', 'setSellFee(uint256)', 'fee_setter', 'corpora'],
  ['b2d8f208', 'setBuyFees(uint256,uint256)', 'fee_setter', 'corpora'],
  ['9fd8234e', 'setSellFees(uint256,uint256)', 'fee_setter', 'corpora'],
  ['dc1052e2', 'setBuyTax(uint256)', 'fee_setter', 'corpora'],
  ['8cd09d50', 'setSellTax(uint256)', 'fee_setter', 'corpora'],
  ['c647b20e', 'setTaxes(uint256,uint256)', 'fee_setter', 'corpora'],
  ['e9dae5ed', 'setTaxes(uint256,uint256,uint256)', 'fee_setter', 'corpora'],
  ['6db79437', 'updateFees(uint256,uint256)', 'fee_setter', 'corpora'],
  ['8095d564', 'updateBuyFees(uint256,uint256,uint256)', 'fee_setter', 'limits'],
  ['c17b5b8c', 'updateSellFees(uint256,uint256,uint256)', 'fee_setter', 'limits'],
  ['34e19907', 'setSwapFee(uint256)', 'fee_setter', 'corpora'],
  ['ec1f3f63', 'reduceFee(uint256)', 'fee_setter', 'stealth'],
  ['437823ec', 'excludeFromFee(address)', 'fee_exclusion', 'safemoon'],
  ['ea2f0b37', 'includeInFee(address)', 'fee_exclusion', 'safemoon'],
  ['af9549e0', 'setExcludeFromFee(address,bool)', 'fee_exclusion', 'corpora'],
  ['c0246668', 'excludeFromFees(address,bool)', 'fee_exclusion', 'limits'],
  ['d63cad22', 'setExcludeFromFees(address,bool)', 'fee_exclusion', 'corpora'],
  ['c492f046', 'excludeMultipleAccountsFromFees(address[],bool)', 'fee_exclusion', 'limits'],
  ['658d4b7f', 'setIsFeeExempt(address,bool)', 'fee_exclusion', 'reward'],
  ['ec28438a', 'setMaxTxAmount(uint256)', 'max_tx', 'safemoon'],
  ['d543dbeb', 'setMaxTxPercent(uint256)', 'max_tx', 'safemoon'],
  ['ea1644d5', 'setMaxWalletSize(uint256)', 'max_tx', 'corpora'],
  ['27a14fc2', 'setMaxWalletAmount(uint256)', 'max_tx', 'corpora'],
  ['5d0044ca', 'setMaxWallet(uint256)', 'max_tx', 'corpora'],
  ['82bf293c', 'setMaxWalletPercent(uint256)', 'max_tx', 'corpora'],
  ['203e727e', 'updateMaxTxnAmount(uint256)', 'max_tx', 'limits'],
  ['c18bc195', 'updateMaxWalletAmount(uint256)', 'max_tx', 'limits'],
  ['7571336a', 'excludeFromMaxTransaction(address,bool)', 'max_tx', 'limits'],
  ['5c85974f', 'setTxLimit(uint256)', 'max_tx', 'reward'],
  ['f84ba65d', 'setIsTxLimitExempt(address,bool)', 'max_tx', 'reward'],
  ['751039fc', 'removeLimits()', 'max_tx', 'limits'],
  ['5932ead1', 'setCooldownEnabled(bool)', 'cooldown', 'stealth'],
  ['4fc3f41a', 'setCooldown(uint256)', 'cooldown', 'corpora'],
  ['2d594567', 'cooldownEnabled(bool,uint8)', 'cooldown', 'reward'],
  ['8a8c523c', 'enableTrading()', 'trading_switch', 'limits'],
  ['c9567bf9', 'openTrading()', 'trading_switch', 'stealth'],
  ['293230b8', 'startTrading()', 'trading_switch', 'corpora'],
  ['c2e5ec04', 'setTradingEnabled(bool)', 'trading_switch', 'corpora'],
  ['8f70ccf7', 'setTrading(bool)', 'trading_switch', 'stealth'],
  ['0d295980', 'tradingStatus(bool)', 'trading_switch', 'reward'],
  ['26e353b8', 'tradingStatus(bool,uint256)', 'trading_switch', 'reward'],
  ['9f276256', 'setTransferDelayEnabled(bool)', 'contract_switch', 'limits'],
  ['e884f260', 'disableTransferDelay()', 'contract_switch', 'limits'],
  ['c49b9a80', 'setSwapAndLiquifyEnabled(bool)', 'contract_switch', 'safemoon'],
  ['924de9b7', 'updateSwapEnabled(bool)', 'contract_switch', 'limits'],
  ['e01af92c', 'setSwapEnabled(bool)', 'contract_switch', 'corpora'],
  ['3659cfe6', 'upgradeTo(address)', 'upgrade', 'eip1967'],
  ['4f1ef286', 'upgradeToAndCall(address,bytes)', 'upgrade', 'eip1967'],
  ['5c60da1b', 'implementation()', 'upgrade', 'eip1967']
]

export const OWNER_SELECTORS: readonly OwnerSelector[] = ROWS.map(([selector, signature, group, source]) => ({
  selector,
  signature,
  group,
  source
}))

/** selector (8 hex digits, lowercase) → its table row */
export const OWNER_SELECTOR_INDEX: ReadonlyMap<string, OwnerSelector> = new Map(
  OWNER_SELECTORS.map((s) => [s.selector, s])
)
