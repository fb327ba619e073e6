"""Example freqtrade strategy that filters its entries with Tidewatch's confirm model (docs/confirm.md).

`confirm_trade_entry` asks Tidewatch whether the market context supports the trade and enters only on the
actions it accepts (default CONFIRM):
- live and dry-run: `GET /v1/confirm` (the answer now);
- backtest and hyperopt: `GET /v1/confirm/history` at the candle's close time (freqtrade's `current_time`
  when it decides an entry on a closed candle), i.e. the answer the live strategy would have got at that
  moment, from what the service had received by then. No lookahead: a backtest sees what live code saw.
  Answers are fetched a page (up to 1,000 steps) at a time per pair and side, and cached.

Use: copy this file into user_data/strategies/ and set in the freqtrade config (or the environment):

    "tidewatch": {"url": "http://127.0.0.1:8080", "key": "tw_live_...", "accept": ["CONFIRM"]}

    freqtrade backtesting --strategy TidewatchConfirmStrategy --timeframe 1h --timerange 20260101-20260201

Settings (config "tidewatch" or env TIDEWATCH_URL, TIDEWATCH_KEY, TIDEWATCH_KNOWN_BY, TIDEWATCH_PAGE_STEPS):
- url, key: the service and an API key of a plan with the confirm feature;
- accept: actions that allow an entry (CONFIRM, REDUCE, SKIP), default ["CONFIRM"];
- known_by: optional moment (epoch ms or ISO 8601 UTC). Default: each step its own moment, what a live
  caller had. Give one (e.g. the time of a bulk import) to use history the service received after the fact;
- fail_open: enter when the service cannot answer (default false: no answer, no entry);
- page_steps: steps fetched per history request (TIDEWATCH_PAGE_STEPS), 1 to 1,000, default 1,000.

Without freqtrade installed the module still imports (the strategy base is a stand-in), so the filter can
be tried on its own:

    TIDEWATCH_KEY=tw_live_... python3 examples/python/tidewatch_confirm_strategy.py BTC/USDT:USDT long 2026-01-15T10:00:00Z
    TIDEWATCH_KEY=tw_live_... python3 examples/python/tidewatch_confirm_strategy.py BTC/USDT:USDT short

With a moment it runs confirm_trade_entry as a backtest would at that close time, without one as live; it
prints {"mode", "enter", "answer"} as JSON. Standard library only.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from types import SimpleNamespace

try:
    from freqtrade.strategy import IStrategy
except ImportError:  # freqtrade absent: a stand-in base, so the confirm filter runs on its own

    class IStrategy:  # type: ignore[no-redef]
        def __init__(self, config=None):
            self.config = config or {}
            self.dp = None


# step intervals /v1/confirm/history offers, ms; a freqtrade timeframe uses the widest that divides it
STEP_MS = {"1d": 86_400_000, "4h": 14_400_000, "1h": 3_600_000, "15m": 900_000, "5m": 300_000, "1m": 60_000}
TIMEFRAME_UNIT_MS = {"m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
PAGE_STEPS = 1_000  # the most steps /v1/confirm/history answers per page: the default page fetched
BACKTEST_MODES = ("backtest", "hyperopt")


def step_interval(timeframe):
    """The widest step interval dividing the timeframe, so every candle close is a step."""
    ms = int(timeframe[:-1]) * TIMEFRAME_UNIT_MS[timeframe[-1]]
    return next(name for name, step in STEP_MS.items() if ms % step == 0)


def epoch_ms(moment):
    return int(moment.timestamp() * 1000)


class TidewatchClient:
    """The confirm answers live (GET /v1/confirm) and at past moments (GET /v1/confirm/history, cached)."""

    def __init__(self, url, key, interval="1h", known_by=None, page_steps=PAGE_STEPS):
        self.url = url.rstrip("/")
        self.page_steps = page_steps
        self.key = key
        self.interval = interval
        self.step_ms = STEP_MS[interval]
        self.known_by = known_by
        self.cache = {}  # (pair, side) -> {step ms: answer}

    def get(self, path, params):
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        while True:
            req = urllib.request.Request(url, headers={"x-api-key": self.key})
            try:
                with urllib.request.urlopen(req, timeout=60) as res:
                    return json.load(res)
            except urllib.error.HTTPError as err:
                if err.code in (429, 503):
                    time.sleep(min(int(err.headers.get("retry-after", "5")), 60))
                    continue
                message = json.load(err).get("error", {}).get("message", "request failed")
                raise RuntimeError(f"{path}: {err.code} {message}") from None

    def live(self, pair, side):
        return self.get("/v1/confirm", {"symbol": pair, "direction": side, "source": "freqtrade"})

    def at(self, pair, side, moment_ms):
        """The answer at the last step at or before moment_ms, as it was then; None when there is none."""
        step = moment_ms // self.step_ms * self.step_ms
        answers = self.cache.setdefault((pair, side), {})
        if step not in answers:
            end = min(step + self.page_steps * self.step_ms, int(time.time() * 1000))
            params = {"symbol": pair, "direction": side, "start": step, "end": end, "interval": self.interval}
            params["limit"] = self.page_steps
            if self.known_by is not None:
                params["known_by"] = self.known_by
            for row in self.get("/v1/confirm/history", params)["data"]:
                answers[row["timestamp"]] = row
        return answers.get(step)


class TidewatchConfirmStrategy(IStrategy):
    """An EMA crossover, long and short, whose entries Tidewatch's confirm model must support."""

    INTERFACE_VERSION = 3
    timeframe = "1h"
    can_short = True
    minimal_roi = {"0": 0.03}
    stoploss = -0.05
    startup_candle_count = 50

    def populate_indicators(self, dataframe, metadata):
        dataframe["ema_fast"] = dataframe["close"].ewm(span=12, adjust=False).mean()
        dataframe["ema_slow"] = dataframe["close"].ewm(span=26, adjust=False).mean()
        return dataframe

    def populate_entry_trend(self, dataframe, metadata):
        above = dataframe["ema_fast"] > dataframe["ema_slow"]
        dataframe.loc[above & ~above.shift(1, fill_value=False), "enter_long"] = 1
        dataframe.loc[~above & above.shift(1, fill_value=False), "enter_short"] = 1
        return dataframe

    def populate_exit_trend(self, dataframe, metadata):
        return dataframe  # exits by minimal_roi and stoploss

    def tidewatch_settings(self):
        s = dict(self.config.get("tidewatch", {}))
        s.setdefault("url", os.environ.get("TIDEWATCH_URL", "http://127.0.0.1:8080"))
        s.setdefault("key", os.environ.get("TIDEWATCH_KEY", ""))
        s.setdefault("known_by", os.environ.get("TIDEWATCH_KNOWN_BY") or None)
        s.setdefault("accept", ["CONFIRM"])
        s.setdefault("fail_open", False)
        s.setdefault("page_steps", int(os.environ.get("TIDEWATCH_PAGE_STEPS") or PAGE_STEPS))
        return s

    @property
    def tidewatch(self):
        if getattr(self, "_tidewatch", None) is None:
            s = self.tidewatch_settings()
            interval = step_interval(self.timeframe)
            self._tidewatch = TidewatchClient(s["url"], s["key"], interval, s["known_by"], s["page_steps"])
        return self._tidewatch

    def backtesting(self):
        runmode = getattr(getattr(self, "dp", None), "runmode", None)
        return getattr(runmode, "value", runmode) in BACKTEST_MODES

    def tidewatch_answer(self, pair, side, current_time):
        """The answer the entry is decided on: at current_time in a backtest, now otherwise."""
        if self.backtesting():
            return self.tidewatch.at(pair, side, epoch_ms(current_time))
        return self.tidewatch.live(pair, side)

    def confirm_trade_entry(
        self, pair, order_type, amount, rate, time_in_force, current_time, entry_tag, side, **kwargs
    ):
        s = self.tidewatch_settings()
        self.tidewatch_last = None  # the answer the last entry was decided on
        try:
            answer = self.tidewatch_last = self.tidewatch_answer(pair, side, current_time)
        except (OSError, RuntimeError) as err:
            print(f"tidewatch: {err}", file=sys.stderr)
            return bool(s["fail_open"])
        if answer is None:
            return bool(s["fail_open"])
        return answer["action"] in s["accept"]


def main():
    """Runs confirm_trade_entry once, as a backtest at the given moment or live without one."""
    pair = sys.argv[1] if len(sys.argv) > 1 else "BTC/USDT:USDT"
    side = sys.argv[2] if len(sys.argv) > 2 else "long"
    moment = sys.argv[3] if len(sys.argv) > 3 else None
    strategy = TidewatchConfirmStrategy({})
    if moment is None:
        mode, current_time = "live", datetime.now(timezone.utc)
    elif moment.isdigit():
        mode, current_time = "backtest", datetime.fromtimestamp(int(moment) / 1000, timezone.utc)
    else:
        mode, current_time = "backtest", datetime.fromisoformat(moment.replace("Z", "+00:00"))
    strategy.dp = SimpleNamespace(runmode=SimpleNamespace(value=mode))
    enter = strategy.confirm_trade_entry(pair, "limit", 1.0, 0.0, "GTC", current_time, None, side)
    print(json.dumps({"mode": mode, "enter": enter, "answer": strategy.tidewatch_last}))


if __name__ == "__main__":
    main()
