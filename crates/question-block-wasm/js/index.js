// The question block contract, compiled from Rust to WebAssembly. Loads the
// module once, in Node or a browser, and talks to it directly: `cargo xtask
// wasm` fills in the names below and checks that the module's interface is
// the one this file calls, which is half the size of wasm-bindgen's general
// JavaScript.
//
// Text crosses into the module as UTF-8 from TextEncoder (values as their
// JSON), which the module takes as valid without checking it again, so
// nothing else may cross; results come back as text, read here.

const url = new URL("./index_question_block_bg.wasm", import.meta.url);
const bytes =
  typeof process !== "undefined" && process.versions && process.versions.node
    ? await (await import("node:fs/promises")).readFile(url)
    : await (await fetch(url)).arrayBuffer();

const MARKER = $MARKER;
const utf8 = new TextEncoder();
let wasm;

// The text at (pointer, length) in the module's memory. A fresh decoder each
// time: one that has decoded 2 GiB stops working in Safari. A leading BOM is
// kept, as JSON.parse must see it.
const read = (at, length) =>
  new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array(wasm.memory.buffer, at >>> 0, length));

// A string as UTF-8 in the module's memory, which the module then owns and
// frees: its (pointer, length). Encoded in place: room for a byte a unit
// first, which is all that ASCII needs, then for three a unit.
function write(text) {
  let room = text.length;
  let at = wasm.__wbindgen_malloc(room, 1) >>> 0;
  let { read, written } = utf8.encodeInto(text, new Uint8Array(wasm.memory.buffer, at, room));
  if (read < room) {
    at = wasm.__wbindgen_realloc(at, room, (room *= 3), 1) >>> 0;
    written += utf8.encodeInto(text.slice(read), new Uint8Array(wasm.memory.buffer, at + written, room - written)).written;
    at = wasm.__wbindgen_realloc(at, room, written, 1) >>> 0;
  }
  return [at, written];
}

// Calls an export with strings (and a flag); returns and frees the text it
// returns.
function call(name, texts, ...flags) {
  const [at, length] = wasm[name](...texts.flatMap(write), ...flags);
  try {
    return read(at, length);
  } finally {
    wasm.__wbindgen_free(at, length, 1);
  }
}

const { instance } = await WebAssembly.instantiate(bytes, {
  "./index_question_block_bg.js": {
    // JSON.stringify(JSON.parse(text)), or NUL and JSON.parse's message when
    // the text is not JSON; its (pointer, length) written at `out`.
    $CANONICAL_JSON(out, at, length) {
      let json;
      try {
        json = JSON.stringify(JSON.parse(read(at, length)));
      } catch (error) {
        json = "\0" + error.message;
      }
      // Written first: writing may grow the memory, and detach its buffer.
      const written = write(json);
      new Int32Array(wasm.memory.buffer, out, 2).set(written);
    },
  },
});
wasm = instance.exports;

export const QUESTION_BLOCK_MARKER = MARKER;
export const QUESTION_BLOCK_VERSION = $VERSION;

// A body is read as the reference's regular expressions read it, through
// String(); prose to serialize must be a string, as its trimEnd() needs.
//
// The reference's opening fence is the last line that starts with three or
// more backticks and the marker, so it holds the marker's last occurrence
// when that line opens a fence at all. That occurrence and its line are
// found here with the engine's own string search, and the module reads the
// message from that line on, so the prose before it costs nothing; the
// prose is sliced from the body and trimmed here, as the reference slices
// and trims it. Otherwise the module reads the whole body, and gives the
// prose as its length, sliced here: the reference's own string, lone
// surrogates and all, and no copy through the module.

// Where the line of the marker's last occurrence starts, when that line
// starts with three or more backticks right before the marker; -1 when it
// does not, -2 when the marker does not occur.
function fenceLine(text) {
  // Searched from the marker's "-", a rare first character that the
  // engine's search skips to fastest: a body without the marker is refused
  // after one search, one with a few occurrences is searched forward, and
  // one with many back from its end.
  const dash = MARKER.indexOf("-");
  let last = -2;
  for (let at = -1, seen = 0; (at = text.indexOf(MARKER.slice(dash), at + 1)) >= 0; seen++) {
    if (seen > 15) {
      last = text.lastIndexOf(MARKER);
      break;
    }
    if (at >= dash && text.startsWith(MARKER, at - dash)) last = at - dash;
  }
  // The run of backticks before it: a short run unit by unit, a long one by
  // the engine's regular expressions, over windows that double, so a run
  // of half a million costs a few native scans.
  let start = last;
  while (start > last - 16 && text.charCodeAt(start - 1) === 96) start--;
  for (let size = 16, from; start === last - size && start > 0; size = last - from) {
    from = Math.max(0, start - size);
    start -= /`*$/.exec(text.slice(from, start))[0].length;
  }
  return last - start < 3 ? (last < 0 ? -2 : -1) : start && !"\n\r\u2028\u2029".includes(text[start - 1]) ? -1 : start;
}

// The module's explanation of `text`, read from the line at `from` on, or
// whole when `from` is -1; false when the line at `from` opens no fence.
function explain(text, from) {
  const whole = from < 0;
  const explained = JSON.parse(call("explainQuestionMessage", [whole ? text : text.slice(from)], !whole));
  if (explained.ok) explained.prose = whole ? text.slice(0, explained.prose) : text.slice(0, from).trimEnd();
  return explained;
}
export function parseQuestionMessage(body) {
  const text = String(body);
  const from = fenceLine(text);
  const explained = from > -2 && ((from >= 0 && explain(text, from)) || explain(text, -1));
  return explained && explained.ok ? { prose: explained.prose, block: explained.block } : null;
}
export const explainQuestionMessage = (body) => explain(String(body), -1);

// A value is checked as the block of a message the module reads: its JSON on
// the one line between two fences (U+2028 and U+2029, which JSON.stringify
// leaves raw and which end lines, escaped), so that only the schema can
// refuse it. `{ok: true, block}` (normalised), or `{ok: false, problems}`
// and the reason listing them.
function check(value) {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error("the value has no JSON form");
  const payload = text.replace(/[\u2028\u2029]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);
  return explain(`\`\`\`${MARKER}\n${payload}\n\`\`\``, 0);
}
export function validateQuestionBlock(value) {
  const { ok, block, problems } = check(value);
  return ok ? { ok, block } : { ok, problems };
}
// The block is written by the engine's own JSON.stringify, as the reference
// writes it, once the module has checked and normalised it; the fence is one
// backtick longer than the payload's longest run, and at least three.
export function serializeQuestionMessage(prose, block) {
  if (typeof prose !== "string") throw new TypeError("prose must be a string");
  const checked = check(block);
  if (!checked.ok) throw new Error(checked.reason);
  const payload = JSON.stringify(checked.block, null, 2);
  const fence = "`".repeat(Math.max(2, ...(payload.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const fenced = `${fence}${MARKER}\n${payload}\n${fence}`;
  const trimmed = prose.trimEnd();
  return trimmed ? `${trimmed}\n\n${fenced}` : fenced;
}
