// SPDX-License-Identifier: MIT
// The honeypot probe of node intelligence (docs/node-intel.md). Never deployed: its runtime code is
// injected at a throwaway address by an eth_call state override, with a native balance to trade with.
// It also reports the block, the token's code size and decimals, so a check needs no other request.
// One call buys the token with the wrapped native through a V2-style router, approves, tries selling all
// of it (undone), sells half back and transfers half of the rest to a fresh address. Every step is a
// low-level call, so one revert does not hide the others; each reports what the router quoted, what
// really arrived and the gas it took.
// HoneypotProbeInit runs the same steps in its constructor (an eth_call that creates it), so the token meets an
// address without code.
// walletBuy is the buy of a simulated wallet (eth_simulateV1, engine/nodeintel/wallet-sim.ts): the wallet calls
// it and the pair pays the tokens to the wallet; the wallet's approve, sell and transfer are its own transactions.
// Only functions common to every V2 fork are used (Trader Joe's router has WAVAX(), not WETH()).
// Regenerate engine/nodeintel/probe-artifact.ts after editing: node tools/build-probe.mjs
pragma solidity 0.8.37;

interface IERC20Min {
    function balanceOf(address) external view returns (uint256);
    function approve(address, uint256) external returns (bool);
    function transfer(address, uint256) external returns (bool);
}

interface IWrappedMin {
    function deposit() external payable;
}

interface IRouterMin {
    function factory() external view returns (address);
    function getAmountsOut(uint256, address[] calldata) external view returns (uint256[] memory);
    function swapExactTokensForTokensSupportingFeeOnTransferTokens(
        uint256,
        uint256,
        address[] calldata,
        address,
        uint256
    ) external;
}

interface IFactoryMin {
    function getPair(address, address) external view returns (address);
}

interface IPairMin {
    function getReserves() external view returns (uint112, uint112, uint32);
    function token0() external view returns (address);
}

/** The probe's steps, shared by the injected probe and the constructor probe. */
abstract contract ProbeSteps {
    struct Step {
        bool ok;
        // the router's quote (buy, sell) or the amount sent (transfer), smallest units of what is received
        uint256 expected;
        // what arrived: the probe's balance delta (buy, sell), the fresh address's (transfer)
        uint256 received;
        uint256 gasUsed;
        // revert data of the failing call (the token's own reason for a failed sell, when it gives one)
        bytes err;
    }

    struct Result {
        // the block the call ran at, the token's code size (0: not a contract) and decimals (0 when not answered)
        uint256 blockNumber;
        uint256 codeSize;
        uint256 decimals;
        address pair;
        uint256 reserveBase;
        uint256 reserveToken;
        uint256 amountIn;
        Step buy;
        bool approveOk;
        // selling the whole balance at once would pass (tried in a call that is always undone)
        bool sellAllOk;
        Step sell;
        // tokens sold, and how many of them reached the pair (the exact sell tax)
        uint256 sellSent;
        uint256 pairReceived;
        Step xfer;
    }

    bytes4 internal constant TRANSFER_WOULD_PASS = 0x7a11ed00;

    // What a check first reads: the block, the token's code size and decimals, its pair with the wrapped native,
    // the reserves and the amount to buy with.
    struct Market {
        uint256 blockNumber;
        uint256 codeSize;
        uint256 decimals;
        address pair;
        uint256 reserveBase;
        uint256 reserveToken;
        uint256 amountIn;
    }

    // A wallet's buy (walletBuy): the market and the buy step, the tokens paid to the calling wallet.
    struct WalletBuy {
        Market market;
        Step buy;
    }

    /** Buys, approves, checks the sell-all (a hook), sells half and transfers half of the rest. */
    function _run(address router, address wrapped, address token, uint256 maxIn) internal returns (Result memory r) {
        Market memory m = _market(router, wrapped, token, maxIn);
        r.blockNumber = m.blockNumber;
        r.codeSize = m.codeSize;
        r.decimals = m.decimals;
        r.pair = m.pair;
        r.reserveBase = m.reserveBase;
        r.reserveToken = m.reserveToken;
        r.amountIn = m.amountIn;
        if (r.amountIn == 0) return r;
        IWrappedMin(wrapped).deposit{value: r.amountIn}();
        IERC20Min(wrapped).approve(router, type(uint256).max);

        r.buy = _swap(router, wrapped, token, r.amountIn, address(this));
        uint256 held = _bal(token, address(this));
        if (held == 0) return r;

        (bool okA, bytes memory retA) = token.call(
            abi.encodeWithSelector(IERC20Min.approve.selector, router, type(uint256).max)
        );
        r.approveOk = okA && (retA.length == 0 || (retA.length == 32 && abi.decode(retA, (bool))));

        r.sellAllOk = _sellAllWouldPass(router, token, wrapped, held);
        r.sellSent = held / 2;
        uint256 pairBefore = _bal(token, r.pair);
        r.sell = _swap(router, token, wrapped, r.sellSent, address(this));
        if (r.sell.ok) {
            uint256 pairAfter = _bal(token, r.pair);
            r.pairReceived = pairAfter > pairBefore ? pairAfter - pairBefore : 0;
        } else {
            bytes memory why = _transferReason(token, r.pair, r.sellSent);
            if (why.length > 0) r.sell.err = why;
        }
        r.xfer = _transfer(token);
    }

    function _market(address router, address wrapped, address token, uint256 maxIn) internal view returns (Market memory m) {
        m.blockNumber = block.number;
        m.codeSize = token.code.length;
        if (m.codeSize == 0) return m;
        (bool okD, bytes memory retD) = token.staticcall(abi.encodeWithSignature("decimals()"));
        if (okD && retD.length >= 32) m.decimals = abi.decode(retD, (uint256));
        m.pair = IFactoryMin(IRouterMin(router).factory()).getPair(token, wrapped);
        if (m.pair == address(0)) return m;
        (uint112 a, uint112 b, ) = IPairMin(m.pair).getReserves();
        bool tokenIs0 = IPairMin(m.pair).token0() == token;
        (m.reserveToken, m.reserveBase) = tokenIs0 ? (uint256(a), uint256(b)) : (uint256(b), uint256(a));
        if (m.reserveBase == 0 || m.reserveToken == 0) return m;
        // 0.5% of the base reserve at most: a small trade keeps the price impact out of the measured taxes
        m.amountIn = m.reserveBase / 200;
        if (m.amountIn > maxIn) m.amountIn = maxIn;
    }

    function _swap(address router, address from, address to, uint256 amount, address recipient) internal returns (Step memory s) {
        address[] memory path = new address[](2);
        path[0] = from;
        path[1] = to;
        try IRouterMin(router).getAmountsOut(amount, path) returns (uint256[] memory out) {
            s.expected = out[1];
        } catch {}
        uint256 before = _bal(to, recipient);
        uint256 g = gasleft();
        (bool ok, bytes memory ret) = router.call(
            abi.encodeWithSelector(
                IRouterMin.swapExactTokensForTokensSupportingFeeOnTransferTokens.selector,
                amount,
                0,
                path,
                recipient,
                block.timestamp + 60
            )
        );
        s.gasUsed = g - gasleft();
        s.ok = ok;
        if (!ok) s.err = ret;
        uint256 afterBal = _bal(to, recipient);
        s.received = afterBal > before ? afterBal - before : 0;
    }

    function _transfer(address token) internal returns (Step memory s) {
        address fresh = address(uint160(uint256(keccak256(abi.encode(address(this), block.number, token)))));
        s.expected = _bal(token, address(this)) / 2;
        if (s.expected == 0) return s;
        uint256 before = _bal(token, fresh);
        uint256 g = gasleft();
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(IERC20Min.transfer.selector, fresh, s.expected));
        s.gasUsed = g - gasleft();
        s.ok = ok && (ret.length == 0 || (ret.length == 32 && abi.decode(ret, (bool))));
        if (!ok) s.err = ret;
        uint256 afterBal = _bal(token, fresh);
        s.received = afterBal > before ? afterBal - before : 0;
    }

    /** The token's own revert data for a failed sell of `amount` to `to` (empty: none found). */
    function _transferReason(address token, address to, uint256 amount) internal virtual returns (bytes memory);

    /** Whether selling `amount` (everything held) would pass. */
    function _sellAllWouldPass(address router, address token, address wrapped, uint256 amount) internal virtual returns (bool);

    function _bal(address token, address who) internal view returns (uint256 v) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(IERC20Min.balanceOf.selector, who));
        if (ok && ret.length >= 32) v = abi.decode(ret, (uint256));
    }
}

/** The probe injected by state override and called (eth_call, or the last block of a wallet simulation). */
contract HoneypotProbe is ProbeSteps {
    function probe(address router, address wrapped, address token, uint256 maxIn) external returns (Result memory r) {
        return _run(router, wrapped, token, maxIn);
    }

    /**
     * The buy of a wallet's simulated transactions (eth_simulateV1): called by the wallet, an address without
     * code, with up to `msg.value` to spend. It wraps, buys through the router and has the pair pay the tokens
     * to the wallet, so the token sees what a wallet's own buy shows it: the pair sending to an address without
     * code, `tx.origin` the receiver. `buy.received` is the wallet's balance delta.
     */
    function walletBuy(address router, address wrapped, address token) external payable returns (WalletBuy memory w) {
        w.market = _market(router, wrapped, token, msg.value);
        if (w.market.amountIn == 0) return w;
        IWrappedMin(wrapped).deposit{value: w.market.amountIn}();
        IERC20Min(wrapped).approve(router, type(uint256).max);
        w.buy = _swap(router, wrapped, token, w.market.amountIn, msg.sender);
    }

    /** The token's own revert data for a plain transfer to the pair (routers mask it as TRANSFER_FROM_FAILED). */
    function _transferReason(address token, address to, uint256 amount) internal override returns (bytes memory) {
        (bool ok, bytes memory ret) = address(this).call(
            abi.encodeWithSelector(this.transferThenRevert.selector, token, to, amount)
        );
        if (ok || (ret.length == 4 && bytes4(ret) == TRANSFER_WOULD_PASS)) return "";
        return ret;
    }

    /** Whether selling `amount` (everything held) would pass: run in a call that always reverts. */
    function _sellAllWouldPass(address router, address token, address wrapped, uint256 amount) internal override returns (bool) {
        (bool ok, bytes memory ret) = address(this).call(
            abi.encodeWithSelector(this.sellThenRevert.selector, router, token, wrapped, amount)
        );
        return !ok && ret.length == 4 && bytes4(ret) == TRANSFER_WOULD_PASS;
    }

    /** Sells through the router and always reverts: the marker when the sell passed, its data otherwise. */
    function sellThenRevert(address router, address token, address wrapped, uint256 amount) external {
        require(msg.sender == address(this));
        address[] memory path = new address[](2);
        path[0] = token;
        path[1] = wrapped;
        (bool ok, bytes memory ret) = router.call(
            abi.encodeWithSelector(
                IRouterMin.swapExactTokensForTokensSupportingFeeOnTransferTokens.selector,
                amount,
                0,
                path,
                address(this),
                block.timestamp + 60
            )
        );
        if (ok) {
            bytes4 marker = TRANSFER_WOULD_PASS;
            assembly {
                mstore(0, marker)
                revert(0, 4)
            }
        }
        assembly {
            revert(add(ret, 32), mload(ret))
        }
    }

    /** Runs a transfer and always reverts, so nothing it did remains: with its data, or a marker when it passed. */
    function transferThenRevert(address token, address to, uint256 amount) external {
        require(msg.sender == address(this));
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(IERC20Min.transfer.selector, to, amount));
        if (ok) {
            bytes4 marker = TRANSFER_WOULD_PASS;
            assembly {
                mstore(0, marker)
                revert(0, 4)
            }
        }
        assembly {
            revert(add(ret, 32), mload(ret))
        }
    }
}

/**
 * The probe as a constructor, run by an eth_call that creates it: while its constructor runs it has no code,
 * so a token checking `extcodesize` of the buyer, seller or sender sees what a wallet shows. Its result is
 * the constructor's return data, encoded as `probe`'s. A contract under construction cannot call itself, so
 * selling everything is not tried (read as passing) and a failed sell's reason is that of one token unit
 * sent straight to the pair.
 */
contract HoneypotProbeInit is ProbeSteps {
    constructor(address router, address wrapped, address token, uint256 maxIn) payable {
        bytes memory out = abi.encode(_run(router, wrapped, token, maxIn));
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    function _transferReason(address token, address to, uint256) internal override returns (bytes memory) {
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(IERC20Min.transfer.selector, to, 1));
        return ok ? bytes("") : ret;
    }

    function _sellAllWouldPass(address, address, address, uint256) internal pure override returns (bool) {
        return true;
    }
}
