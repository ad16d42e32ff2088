// The WebAssembly package in Node: the canonical fixture byte for byte, the
// shared example bodies, and every shared test vector, with the results the
// Rust tests assert.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = process.env.INDEX_WASM_PKG;
const fixtures = process.env.INDEX_FIXTURES;
assert.ok(pkg && fixtures, "INDEX_WASM_PKG and INDEX_FIXTURES must be set");
const qb = await import(pathToFileURL(join(pkg, "index.js")).href);
const fixture = await import(pathToFileURL(join(pkg, "fixture.js")).href);

test("the constants", () => {
  assert.equal(qb.QUESTION_BLOCK_MARKER, "index-questions");
  assert.equal(qb.QUESTION_BLOCK_VERSION, 1);
});

test("the canonical fixture round-trips byte for byte", () => {
  const parsed = qb.parseQuestionMessage(fixture.questionMessageFixture);
  assert.equal(parsed.prose, fixture.questionProseFixture);
  assert.deepEqual(parsed.block, fixture.questionBlockFixture);
  assert.equal(qb.serializeQuestionMessage(parsed.prose, parsed.block), fixture.questionMessageFixture);
  assert.equal(qb.serializeQuestionMessage(fixture.questionProseFixture, fixture.questionBlockFixture), readFileSync(join(fixtures, "canonical.message.txt"), "utf8"));
});

test("absent optional keys stay absent", () => {
  const parsed = qb.parseQuestionMessage(fixture.questionMessageFixture);
  const second = parsed.block.questions[1];
  assert.equal("alsoUnblocks" in second, false);
  assert.deepEqual(Object.keys(parsed.block.questions[0]), ["prompt", "opportunityId", "alsoUnblocks"]);
});

const bodies = (kind) => readdirSync(join(fixtures, kind)).map((name) => [name, readFileSync(join(fixtures, kind, name), "utf8")]);

test("valid examples parse", () => {
  for (const [name, body] of bodies("valid")) {
    assert.notEqual(qb.parseQuestionMessage(body), null, name);
    assert.equal(qb.explainQuestionMessage(body).ok, true, name);
  }
});

test("invalid examples are refused for the rule they are named for", () => {
  for (const [name, body] of bodies("invalid")) {
    assert.equal(qb.parseQuestionMessage(body), null, name);
    const why = qb.explainQuestionMessage(body);
    assert.equal(why.ok, false);
    assert.equal(why.rule, name.replace(/\.txt$/, ""), name);
  }
});

test("every shared vector gives the reference's result", () => {
  const lines = readFileSync(join(fixtures, "vectors.jsonl"), "utf8").split("\n").filter(Boolean);
  assert.ok(lines.length >= 300);
  const failures = [];
  for (const line of lines) {
    const v = JSON.parse(line);
    if (v.kind === "parse") {
      const got = qb.parseQuestionMessage(v.body);
      try { assert.deepEqual(got, v.expected); } catch { failures.push(v.name); }
    } else if (v.kind === "parse_utf16") {
      // A JavaScript string with lone surrogates, as a browser may hold one.
      // The prose is the start of that very string, as the reference's is;
      // the recorded prose, like the block's strings, has each lone
      // surrogate as U+FFFD.
      const body = String.fromCharCode(...v.units);
      const got = qb.parseQuestionMessage(body);
      const prose = got?.prose;
      const reads = got === null || (body.startsWith(prose) && prose.length === v.expected?.prose.length);
      if (got) got.prose = prose.toWellFormed();
      try { assert.deepEqual(got, v.expected); assert.ok(reads); } catch { failures.push(v.name); }
    } else {
      let got;
      try { got = qb.serializeQuestionMessage(v.prose, v.block); } catch { got = null; }
      if (got !== v.expected) failures.push(v.name);
    }
  }
  assert.deepEqual(failures, []);
});

test("validation lists every problem; serialize throws with them", () => {
  const block = { version: 2, questions: [{ prompt: "", opportunityId: "nope" }], extra: true };
  const result = qb.validateQuestionBlock(block);
  assert.equal(result.ok, false);
  assert.deepEqual(result.problems.map((p) => p.path), ["version", "questions.0.prompt", "questions.0.opportunityId", "(root)"]);
  assert.throws(() => qb.serializeQuestionMessage("P", block), (err) => err instanceof Error && /questions\.0\.prompt/.test(err.message));
  const ok = qb.validateQuestionBlock(fixture.questionBlockFixture);
  assert.equal(ok.ok, true);
});

test("prose keeps the body's lone surrogates, as the reference's does", () => {
  const body = "Pro\udc00se.\n\n" + fixture.questionMessageFixture.slice(fixture.questionMessageFixture.indexOf("```"));
  assert.equal(qb.parseQuestionMessage(body).prose, "Pro\udc00se.");
  const explained = qb.explainQuestionMessage(body);
  assert.equal(explained.ok, true);
  assert.equal(explained.prose, "Pro\udc00se.");
  assert.deepEqual(Object.keys(explained), ["ok", "prose", "block"]);
});

test("a body that is not a string is read as the reference reads it; prose must be a string", () => {
  assert.equal(qb.parseQuestionMessage(undefined), null);
  assert.equal(qb.parseQuestionMessage(42), null);
  assert.equal(qb.explainQuestionMessage(null).rule, "no-marker-fence");
  assert.throws(() => qb.serializeQuestionMessage(undefined, fixture.questionBlockFixture), TypeError);
});

test("the module's memory is the largest call's, however many calls there are", async () => {
  // The module on its own, called as index.js calls it: its allocator
  // starts over once a call's text and result are freed, so memory grows
  // only for a larger call than any before.
  const bytes = readFileSync(join(pkg, "index_question_block_bg.wasm"));
  const module = await WebAssembly.compile(bytes);
  const [imported] = WebAssembly.Module.imports(module);
  let wasm;
  const utf8 = new TextEncoder();
  const write = (text) => {
    const encoded = utf8.encode(text);
    const at = wasm.__wbindgen_malloc(encoded.length, 1) >>> 0;
    new Uint8Array(wasm.memory.buffer, at, encoded.length).set(encoded);
    return [at, encoded.length];
  };
  const read = (at, length) => new TextDecoder().decode(new Uint8Array(wasm.memory.buffer, at >>> 0, length));
  const canonical = (text) => {
    try {
      return JSON.stringify(JSON.parse(text));
    } catch (error) {
      return "\0" + error.message;
    }
  };
  const instance = await WebAssembly.instantiate(module, {
    [imported.module]: {
      // The host's canonical JSON, as index.js gives it (written before the
      // view is made: writing may grow the memory).
      [imported.name](out, at, length) {
        const written = write(canonical(read(at, length)));
        new Int32Array(wasm.memory.buffer, out, 2).set(written);
      },
    },
  });
  wasm = instance.exports;
  const message = fixture.questionMessageFixture;
  const tail = message.slice(message.indexOf("```"));
  const calls = [
    [message, 0],
    [tail, 1],
    [message.replace('"version": 1', '"version": 1.0'), 0],
    ["```index-questions\n{nope}\n```", 0],
    [JSON.stringify(fixture.questionBlockFixture), 2],
    [JSON.stringify({ version: 2 }), 2],
    [`${"prose ".repeat(20000)}\n\n${message}`, 0],
  ];
  const round = () => {
    for (const [text, task] of calls) {
      const [at, length] = wasm.questionMessage(...write(text), task);
      assert.ok(read(at, length).length > 0);
      wasm.__wbindgen_free(at, length, 1);
    }
  };
  round();
  const size = wasm.memory.buffer.byteLength;
  for (let i = 0; i < 200; i++) round();
  assert.equal(wasm.memory.buffer.byteLength, size);
});
