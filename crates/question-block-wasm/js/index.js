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

// The text at (pointer, length) in the module's memory. One decoder,
// replaced after each gigabyte: making one costs as much as decoding a
// message, and one that has decoded 2 GiB stops working in Safari. A
// leading BOM is kept, as JSON.parse must see it.
let decoder;
let decoded = Infinity;
function read(at, length) {
  if ((decoded += length) > 2 ** 30) {
    decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    decoded = length;
  }
  return decoder.decode(new Uint8Array(wasm.memory.buffer, at >>> 0, length));
}

// A string as UTF-8 in the module's memory, which the module then owns and
// frees: its (pointer, length). Encoded in place, into room for three bytes
// a unit, which is then shrunk to what was written (where it is: the
// module's allocator grows and shrinks its newest allocation in place).
function write(text) {
  const room = text.length * 3;
  const at = wasm.__wbindgen_malloc(room, 1) >>> 0;
  const { written } = utf8.encodeInto(text, new Uint8Array(wasm.memory.buffer, at, room));
  return [wasm.__wbindgen_realloc(at, room, written, 1) >>> 0, written];
}

// What the module's one export does with a text: explain a whole message,
// decide a message's end from its fence line, or check a block.
const EXPLAIN = 0;
const PARSE_FROM_FENCE_LINE = 1;
const CHECK_BLOCK = 2;

// The module never writes a block: a payload it accepts is read by the
// engine's own JSON.parse, as the reference reads it, and is the block
// once its objects hold their keys in the contract's order; the module
// says whether they do, and they are put in that order when not.
const KEYS = $KEYS;

// Calls the module with `text` and a task; returns and frees the text it
// returns.
function call(text, task) {
  const [at, length] = wasm.questionMessage(...write(text), task);
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

// The module's explanation of `text`, or (from the line at `from` on) its
// decision alone; false when the line at `from` opens no fence.
function explain(text, from = -1) {
  const whole = from < 0;
  const read = whole ? text : text.slice(from);
  const explained = JSON.parse(call(read, whole ? EXPLAIN : PARSE_FROM_FENCE_LINE));
  if (!Array.isArray(explained)) return explained;
  const [prose, start, end, ordered] = explained;
  let block = JSON.parse(read.slice(start, end));
  if (!ordered) block = JSON.parse(JSON.stringify(block, KEYS));
  return { ok: true, prose: whole ? text.slice(0, prose) : text.slice(0, from).trimEnd(), block };
}
export function parseQuestionMessage(body) {
  const text = String(body);
  // A message ends with its closing fence and at most whitespace after it,
  // so a body whose last other character is not a backtick is no message,
  // and is not read further.
  if (!text.trimEnd().endsWith("`")) return null;
  const from = fenceLine(text);
  const explained = from > -2 && ((from >= 0 && explain(text, from)) || explain(text));
  return explained?.ok ? { prose: explained.prose, block: explained.block } : null;
}
export const explainQuestionMessage = (body) => explain(String(body));

// A block is read once, through its JSON as the reference's serializer
// writes it, which the module checks; one that is not valid is refused as a
// message that holds it is.
function written(block) {
  const payload = JSON.stringify(block, null, 2);
  // JSON.stringify gives undefined, or text that is never empty.
  if (!payload) throw new Error("the value has no JSON form");
  const checked = JSON.parse(call(payload, CHECK_BLOCK));
  if (!Array.isArray(checked)) return checked;
  return { ok: true, payload: checked[0] ? payload : JSON.stringify(JSON.parse(payload), KEYS, 2) };
}
export function validateQuestionBlock(value) {
  const { ok, payload, problems } = written(value);
  return ok ? { ok, block: JSON.parse(payload) } : { ok, problems };
}
// Fenced one backtick longer than the payload's longest run, and at least
// three, so only runs of three or more need measuring (the reference
// matches every run); the prose is trimmed and joined here, so it never
// crosses into the module.
export function serializeQuestionMessage(prose, block) {
  if (typeof prose !== "string") throw new TypeError("prose must be a string");
  const { ok, payload, reason } = written(block);
  if (!ok) throw new Error(reason);
  const fence = "`".repeat(Math.max(2, ...(payload.match(/`{3,}/g) ?? []).map((run) => run.length)) + 1);
  const fenced = `${fence}${MARKER}\n${payload}\n${fence}`;
  const trimmed = prose.trimEnd();
  return trimmed ? `${trimmed}\n\n${fenced}` : fenced;
}
