"""Example Tidewatch candle puller, Python standard library only (docs/history.md "GET /v1/historical/ohlcv").

Walks a fixed range page by page with next_cursor (every candle once, in order) and writes a CSV with the
record's columns. Retries a page after a 429 or 503 for the server's Retry-After.

    TIDEWATCH_KEY=tw_live_... python3 examples/python/pull_candles.py BTC 1h 90 btc-1h.csv

Arguments: symbol, timeframe, days back from now (rounded down to the hour), output file.
Env: TIDEWATCH_URL (default http://127.0.0.1:8080), TIDEWATCH_KEY; END_MS and PAGE_LIMIT pin the range end
and the page size. Prints the rows and pages as JSON.
"""

import csv
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

COLUMNS = ["timestamp", "open", "high", "low", "close", "volume_base", "volume_quote", "trades"]
HOUR_MS = 3_600_000


def get_page(base, key, params):
    url = f"{base}/v1/historical/ohlcv?{urllib.parse.urlencode(params)}"
    while True:
        req = urllib.request.Request(url, headers={"x-api-key": key})
        try:
            with urllib.request.urlopen(req, timeout=60) as res:
                return json.load(res)
        except urllib.error.HTTPError as err:
            if err.code in (429, 503):
                time.sleep(min(int(err.headers.get("retry-after", "5")), 60))
                continue
            message = json.load(err).get("error", {}).get("message", "request failed")
            raise SystemExit(f"{err.code}: {message}")


def pull(base, key, symbol, timeframe, start_ms, end_ms, out, limit=10_000):
    rows = pages = 0
    cursor = None
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        while True:
            params = {"symbol": symbol, "timeframe": timeframe, "start_time": start_ms, "end_time": end_ms, "limit": limit}
            if cursor is not None:
                params["cursor"] = cursor
            page = get_page(base, key, params)
            for c in page["data"]:
                writer.writerow([c[k] for k in COLUMNS])
                rows += 1
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                return rows, pages


def main():
    args = sys.argv[1:]
    symbol = args[0] if len(args) > 0 else "BTC"
    timeframe = args[1] if len(args) > 1 else "1h"
    days = int(args[2]) if len(args) > 2 else 90
    out = args[3] if len(args) > 3 else f"{symbol.lower()}-{timeframe}.csv"
    end_ms = int(os.environ.get("END_MS") or (int(time.time() * 1000) // HOUR_MS * HOUR_MS))
    limit = int(os.environ.get("PAGE_LIMIT", "10000"))
    rows, pages = pull(
        os.environ.get("TIDEWATCH_URL", "http://127.0.0.1:8080"),
        os.environ.get("TIDEWATCH_KEY", ""),
        symbol,
        timeframe,
        end_ms - days * 24 * HOUR_MS,
        end_ms,
        out,
        limit,
    )
    print(json.dumps({"rows": rows, "pages": pages, "file": out}))


if __name__ == "__main__":
    main()
