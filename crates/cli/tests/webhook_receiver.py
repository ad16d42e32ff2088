"""A webhook receiver for the tests: every delivery verified with the
Standard Webhooks reference package, and recorded.

    python webhook_receiver.py DIR [--fail-rate P]

Listens on a free loopback port and prints `listening on http://ADDR`.
POST /hooks/NAME is verified with the secrets DIR/secrets.json lists for
NAME ({"NAME": ["whsec_...", ...]}, read at each request, so a test can
add endpoints and rotate secrets as it goes). While DIR/down exists every
delivery gets 503; otherwise a share P of them (at random) gets 500; the
rest are verified: 204 when a secret verifies, 400 when none does. Each
request is appended to DIR/received.jsonl as {"endpoint", "id",
"outcome" (down, failed, delivered, unverified), "event" (the body, when
verified), "traceparent"}.
"""

import argparse
import json
import os
import random
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--fail-rate", type=float, default=0.0)
    args = parser.parse_args()
    lock = threading.Lock()
    received = os.path.join(args.dir, "received.jsonl")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length).decode()
            name = self.path.rsplit("/", 1)[-1]
            record = {
                "endpoint": name,
                "id": self.headers.get("webhook-id"),
                "traceparent": self.headers.get("traceparent"),
                "event": None,
            }
            if os.path.exists(os.path.join(args.dir, "down")):
                status, record["outcome"] = 503, "down"
            elif random.random() < args.fail_rate:
                status, record["outcome"] = 500, "failed"
            else:
                with open(os.path.join(args.dir, "secrets.json")) as file:
                    secrets = json.load(file).get(name, [])
                status, record["outcome"] = 400, "unverified"
                for secret in secrets:
                    try:
                        record["event"] = Webhook(secret).verify(body, dict(self.headers))
                    except Exception:
                        continue
                    status, record["outcome"] = 204, "delivered"
                    break
            with lock, open(received, "a") as file:
                file.write(json.dumps(record) + "\n")
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
