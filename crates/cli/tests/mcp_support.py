"""What the Python MCP client scripts share: their arguments, reporting a
check, making a key with the `index` tool, running `index serve`, and the
exit code a failure gives."""

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading


def arguments(*more):
    """The script's arguments: `--index` (the tool) and `--dir` (a scratch
    directory), and each of `more` (names such as `db`), all required."""
    parser = argparse.ArgumentParser()
    for name in ("index", "dir", *more):
        parser.add_argument(f"--{name}", required=True)
    return parser.parse_args()


def check(condition, what):
    """Fails the script unless `condition`; prints `ok: what` when it holds."""
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}", flush=True)


def refusal_code(result):
    """The code of a refused tool call: the error object is JSON in its
    first text block, and a refusal carries no structured content (which a
    client checks against the tool's output schema)."""
    if not result.is_error or result.structured_content is not None:
        return None
    return json.loads(result.content[0].text)["error"]["code"]


def key_of(index, db, user, host=False):
    """A new key for `user` in `db` (a host key when `host`), as printed."""
    args = [index, "keys", "create", "--user", user, "--db", db] + (["--host"] if host else [])
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


# The running hosts by base URL, so a script may stop one early.
_SERVERS = {}


def stop_now(base):
    """Sends SIGTERM to the host serving `base`, as a service manager
    stops it; `serving` still checks that it ends cleanly."""
    _SERVERS[base].send_signal(signal.SIGTERM)


@contextlib.contextmanager
def serving(index, db, *args, env=None):
    """`index serve` on `db` (with `args`, and `env` besides the process's
    own) on a free port. Yields its base URL and the lines it logs, read as
    they come so it never blocks on a full pipe; stops it with SIGTERM,
    which must end it cleanly, and has read all it logged by then."""
    server = subprocess.Popen(
        [index, "serve", "--listen", "127.0.0.1:0", "--db", db, *args],
        stderr=subprocess.PIPE, text=True, env=dict(os.environ, **(env or {})),
    )
    log = []
    reader = threading.Thread(target=lambda: log.extend(server.stderr), daemon=True)
    try:
        line = server.stderr.readline()
        check(line.startswith("listening on http://"), f"the host is up: {line.strip()}")
        reader.start()
        _SERVERS[line.split()[2]] = server
        yield line.split()[2], log
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
        if reader.is_alive():
            reader.join(timeout=10)
    check(code == 0, "the host stops cleanly on SIGTERM")


def run(main):
    """Runs the coroutine `main`, any failure a non-zero exit."""
    import asyncio

    try:
        asyncio.run(main())
    except Exception as err:  # report any failure as a non-zero exit
        print(f"FAILED: {err!r}", file=sys.stderr, flush=True)
        sys.exit(1)
