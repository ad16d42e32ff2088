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

// The vectors record the Rust crate, which reads a lone surrogate as U+FFFD
// (STABILITY.md). The package's blocks are the engine's JSON.parse of the
// payload, so they keep it, as the reference's do: the recorded result once
// every string is made well-formed, and not before.
const wellFormed = (value) =>
  value && JSON.parse(JSON.stringify(value, (_, v) => (typeof v === "string" ? v.toWellFormed() : v)));

test("every shared vector gives the reference's result", () => {
  const lines = readFileSync(join(fixtures, "vectors.jsonl"), "utf8").split("\n").filter(Boolean);
  assert.ok(lines.length >= 300);
  const failures = [];
  for (const line of lines) {
    const v = JSON.parse(line);
    if (v.kind === "parse") {
      const got = qb.parseQuestionMessage(v.body);
      const surrogates = v.deviation === "lone-surrogate-as-replacement-character";
      try {
        assert.deepEqual(surrogates ? wellFormed(got) : got, v.expected);
        if (surrogates) assert.notDeepEqual(got, v.expected);
      } catch { failures.push(v.name); }
    } else if (v.kind === "parse_utf16") {
      // A JavaScript string with lone surrogates, as a browser may hold one.
      // The prose is the start of that very string, as the reference's is.
      const body = String.fromCharCode(...v.units);
      const got = qb.parseQuestionMessage(body);
      const reads = got === null || (body.startsWith(got.prose) && got.prose.length === v.expected?.prose.length);
      try { assert.deepEqual(wellFormed(got), v.expected); assert.ok(reads); } catch { failures.push(v.name); }
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

test("a block's keys come back in the contract's order, however the payload or value held them", () => {
  const id = "3c9a7e52-1f4b-4d8e-a6c2-9b0f3e7d5a14";
  const also = "8e2d4b6f-0a1c-4e3b-9d5f-7c6a2b1e0f93";
  const shuffled = { questions: [{ alsoUnblocks: [also], opportunityId: id, prompt: "Q?" }], version: 1 };
  const ordered = (block) => [Object.keys(block), ...block.questions.map((question) => Object.keys(question))];
  const expected = [["version", "questions"], ["prompt", "opportunityId", "alsoUnblocks"]];
  const message = "P\n\n```index-questions\n" + JSON.stringify(shuffled) + "\n```";
  assert.deepEqual(ordered(qb.parseQuestionMessage(message).block), expected);
  assert.deepEqual(ordered(qb.explainQuestionMessage(message).block), expected);
  assert.deepEqual(ordered(qb.validateQuestionBlock(shuffled).block), expected);
  const serialized = qb.serializeQuestionMessage("P", shuffled);
  assert.equal(serialized, qb.serializeQuestionMessage("P", qb.parseQuestionMessage(serialized).block));
  assert.deepEqual(ordered(JSON.parse(serialized.slice(serialized.indexOf("{"), serialized.lastIndexOf("}") + 1))), expected);
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
