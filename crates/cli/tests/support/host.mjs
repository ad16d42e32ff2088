// What the Node scripts share: their `--name value` arguments, and
// `index serve` started on a free port, its address read from the first
// line it prints, its log passed on.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** Starts `index serve` on `db`, with `env` besides the process's own and
 * `args` after its own; the process and its base URL. */
export async function serve(index, db, env = {}, args = []) {
  const child = spawn(index, ["serve", "--listen", "127.0.0.1:0", "--db", db, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, RUST_LOG: "warn", ...env },
  });
  const lines = createInterface({ input: child.stderr });
  const first = await new Promise((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`index serve exited: ${code}`)));
  });
  lines.on("line", (line) => console.error(`host: ${line}`));
  const address = first.match(/^listening on (http:\/\/\S+)/)?.[1];
  if (!address) throw new Error(`the host did not start: ${first}`);
  return { child, base: new URL(address) };
}

/** The value after `--name` on the command line; there must be one. */
export function arg(name) {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0 || at + 1 >= process.argv.length) throw new Error(`--${name} is required`);
  return process.argv[at + 1];
}
