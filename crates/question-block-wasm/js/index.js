// The question block contract, compiled from Rust to WebAssembly. Loads the
// module once, in Node or a browser, and talks to it directly: `cargo xtask
// wasm` fills in the names below and checks that the module's interface is
// the one this file calls, which is half the size of wasm-bindgen's general
// JavaScript.
//
// Text crosses into the module as UTF-8 from TextEncoder (values as their
// JSON), which the module takes as valid without checking it again, so
// nothing else may cross; results come back as JSON text, read here.

const url = new URL("./index_question_block_bg.wasm", import.meta.url);
const bytes =
  typeof process !== "undefined" && process.versions && process.versions.node
    ? await (await import("node:fs/promises")).readFile(url)
    : await (await fetch(url)).arrayBuffer();

const utf8 = new TextEncoder();
let wasm;

// The text at (pointer, length) in the module's memory. A fresh decoder each
// time: one that has decoded 2 GiB stops working in Safari. A leading BOM is
// kept, as JSON.parse must see it.
const read = (at, length) =>
  new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array(wasm.memory.buffer, at >>> 0, length));

// A string as UTF-8 in the module's memory, which the module then owns and
// frees: its (pointer, length).
function write(text) {
  const encoded = utf8.encode(text);
  const at = wasm.__wbindgen_malloc(encoded.length, 1) >>> 0;
  new Uint8Array(wasm.memory.buffer).set(encoded, at);
  return [at, encoded.length];
}

// Calls an export with strings; parses and frees the JSON it returns.
function call(name, ...texts) {
  const [at, length] = wasm[name](...texts.flatMap(write));
  try {
    return JSON.parse(read(at, length));
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
      const [written, writtenLength] = write(json);
      const memory = new DataView(wasm.memory.buffer);
      memory.setInt32(out >>> 0, written, true);
      memory.setInt32((out >>> 0) + 4, writtenLength, true);
    },
  },
});
wasm = instance.exports;

// The JSON of a value, as the reference's schema would see it.
function json(value) {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error("the value has no JSON form");
  return text;
}

export const QUESTION_BLOCK_MARKER = $MARKER;
export const QUESTION_BLOCK_VERSION = $VERSION;
// A body is read as the reference's regular expressions read it, through
// String(); prose to serialize must be a string, as its trimEnd() needs.
// The module gives the prose as its length, and it is sliced from the body
// here: the reference's own string, lone surrogates and all, and no copy
// through the module.
function readMessage(name, body) {
  const text = String(body);
  const parsed = call(name, text);
  if (parsed && parsed.ok !== false) parsed.prose = text.slice(0, parsed.prose);
  return parsed;
}
export const parseQuestionMessage = (body) => readMessage("parseQuestionMessage", body);
export const explainQuestionMessage = (body) => readMessage("explainQuestionMessage", body);
export const validateQuestionBlock = (value) => call("validateQuestionBlock", json(value));
export function serializeQuestionMessage(prose, block) {
  if (typeof prose !== "string") throw new TypeError("prose must be a string");
  const result = call("serializeQuestionMessage", prose, json(block));
  if ("error" in result) throw new Error(result.error);
  return result.message;
}
