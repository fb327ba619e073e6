"""Example Tidewatch webhook receiver, Python standard library only (docs/webhooks.md "Verifying deliveries").

Checks both signatures of every delivery over the exact bytes received: X-Service-Signature (hex
HMAC-SHA256 of the body) and the Standard Webhooks webhook-signature over "id.timestamp.body" with a
5-minute timestamp tolerance, both keyed with the hex text of SHA-256(secret). A delivery failing either is
answered 401; a verified one 200, handled once per webhook-id, printed as a JSON line with its delivery id (`delivery_id`). Webhooks are https://
only, so it serves TLS when given a certificate (or runs behind a proxy that terminates TLS).

    TIDEWATCH_WEBHOOK_SECRET=... PORT=8443 TLS_CERT=cert.pem TLS_KEY=key.pem python3 examples/python/webhook_receiver.py
"""

import base64
import hashlib
import hmac
import json
import os
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_S = 5 * 60
BODY_MAX = 256 * 1024


def signing_key(secret: str) -> bytes:
    """The key of both schemes: the 64 ASCII bytes of the hex SHA-256 of the secret."""
    return hashlib.sha256(secret.encode()).hexdigest().encode("ascii")


def verify(key: bytes, headers, body: bytes, now_s=None):
    """Why a delivery fails verification, or None when both signatures hold."""
    service = hmac.new(key, body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(headers.get("x-service-signature", ""), service):
        return "X-Service-Signature does not match the body"
    msg_id = headers.get("webhook-id", "")
    ts = headers.get("webhook-timestamp", "")
    now_s = int(time.time()) if now_s is None else now_s
    if not ts.isdigit() or abs(now_s - int(ts)) > TOLERANCE_S:
        return "webhook-timestamp is missing or more than 5 minutes from this clock"
    signed = hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    want = base64.b64encode(signed).decode()
    for sig in headers.get("webhook-signature", "").split(" "):
        if sig.startswith("v1,") and hmac.compare_digest(sig[3:], want):
            return None
    return "webhook-signature does not match"


def make_handler(key: bytes):
    seen = set()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            size = int(self.headers.get("content-length") or 0)
            if size > BODY_MAX:
                return self._answer(413, "too large")
            body = self.rfile.read(size)
            headers = {k.lower(): v for k, v in self.headers.items()}
            refused = verify(key, headers, body)
            if refused:
                return self._answer(401, refused)
            msg_id = headers["webhook-id"]
            if msg_id not in seen:
                seen.add(msg_id)
                event = json.loads(body)
                print(json.dumps({"delivery_id": msg_id, **event}), flush=True)
            self._answer(200, "ok")

        def _answer(self, status, text):
            data = text.encode()
            self.send_response(status)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


def main():
    secret = os.environ.get("TIDEWATCH_WEBHOOK_SECRET")
    if not secret:
        print("set TIDEWATCH_WEBHOOK_SECRET to the secret the webhook was registered with", file=sys.stderr)
        sys.exit(2)
    host = os.environ.get("HOST", "127.0.0.1")
    server = ThreadingHTTPServer((host, int(os.environ.get("PORT", "8443"))), make_handler(signing_key(secret)))
    scheme = "http"
    if os.environ.get("TLS_CERT") and os.environ.get("TLS_KEY"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.environ["TLS_CERT"], os.environ["TLS_KEY"])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    print(f"listening on {scheme}://{host}:{server.server_address[1]}/hook", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
