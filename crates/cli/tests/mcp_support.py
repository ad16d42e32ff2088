"""What the Python MCP client scripts share: reporting a check, making a
key with the `index` tool, and the exit code a failure gives."""

import subprocess
import sys


def check(condition, what):
    """Fails the script unless `condition`; prints `ok: what` when it holds."""
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}", flush=True)


def key_of(index, db, user, host=False):
    """A new key for `user` in `db` (a host key when `host`), as printed."""
    args = [index, "keys", "create", "--user", user, "--db", db] + (["--host"] if host else [])
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def run(main):
    """Runs the coroutine `main`, any failure a non-zero exit."""
    import asyncio

    try:
        asyncio.run(main())
    except Exception as err:  # report any failure as a non-zero exit
        print(f"FAILED: {err!r}", file=sys.stderr, flush=True)
        sys.exit(1)
