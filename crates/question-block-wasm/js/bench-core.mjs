// The package against the reference's own JavaScript, in whichever engine
// loads this module (Node, or a page in Chromium): the same bodies as the
// native benchmark (`crates/question-block/benches/question_block.rs`), each
// about 1 MiB, plus the canonical message and a large block to serialize.
//
// Each case is timed interleaved: a batch of the package's calls, then a
// batch of the reference's, over several rounds, keeping each side's best
// batch, so a slow moment of the machine lands on both or neither. A ratio
// is the reference's time over the package's: at or above 1.0 the package
// is at least as fast.

const MIB = 1 << 20;

const repeated = (line, size) => line.repeat(Math.floor(size / line.length));

// `prose`, then `message` (the canonical question message).
const bigBody = (prose, message) => `${prose}\n\n${message}`;

// A block of `count` distinct questions as a message: too many for the
// contract, so refused.
function manyQuestions(count) {
  const questions = [];
  for (let i = 0; i < count; i++) {
    const id = i.toString(16).padStart(12, "0");
    questions.push(`    {"prompt": "Question number ${i}, asked plainly?", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-${id}"}`);
  }
  return `Prose.\n\n\`\`\`index-questions\n{"version": 1, "questions": [\n${questions.join(",\n")}\n]}\n\`\`\``;
}

/** Every body of the benchmark, `[name, body]`, about `size` UTF-16 units each. */
export function bodies(message, size = MIB) {
  const fence = "`".repeat(size / 2);
  const inline = repeated("Use `x` or `y`, then `z` again.\n", size);
  return [
    ["canonical", message],
    ["long-prose", bigBody(repeated("Plain prose about a negotiation, going on for a while. ", size), message)],
    ["long-prose-non-ascii", bigBody(repeated("Prose about a négociation, going on for a while. ", size), message)],
    ["backtick-lines", bigBody(repeated("```\n````\n`````rust\n", size), message)],
    ["marker-lines", bigBody(repeated("```index-questions\n", size), message)],
    ["no-block", repeated("Plain prose with no block at all, going on and on. ", size)],
    ["inline-code", repeated("Use `x` or `y`, then `z` again. ", size)],
    ["inline-code-unclosed", `\`\`\`index-questions\n${inline}`],
    ["marker-mid-line", repeated("see ```index-questions here ", size)],
    ["marker-lines-unclosed-lf", repeated("```index-questions\n", size)],
    ["marker-lines-unclosed-cr", repeated("```index-questions\r", size)],
    ["marker-lines-unclosed-u2028", repeated("```index-questions\u2028", size)],
    ["near-miss-lines-unclosed", `\`\`\`index-questions\n${repeated("```` not a close\n", size)}`],
    ["tick-space-lines-unclosed", `\`\`\`index-questions\n${repeated("``` x\n", size)}`],
    ["too-many-questions", manyQuestions(size / 100)],
    ["long-fence", `${fence}index-questions\n{"version": 1, "questions": [{"prompt": "Q?", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4"}]}\n${fence}`],
  ];
}

/** A valid block of 20 questions whose prompts are 2,000 UTF-16 units each. */
export function largeBlock() {
  const questions = [];
  for (let i = 0; i < 20; i++) {
    const id = `9d2e7a41-c3b8-4f05-a6e9-${i.toString(16).padStart(12, "0")}`;
    questions.push({ prompt: `Question ${String(i).padStart(2, "0")}: ${"why `not` é? ".repeat(142)}`.slice(0, 2000), opportunityId: id });
  }
  return { version: 1, questions };
}

// The best time of `batch` calls of `work`, in milliseconds per call, over
// rounds interleaved with the other side's.
function interleaved(sides, budgetMs) {
  const now = () => performance.now();
  // Calibrate: enough calls per batch that one batch takes ~10 ms.
  const batches = sides.map((work) => {
    let calls = 1;
    for (;;) {
      const start = now();
      for (let i = 0; i < calls; i++) work();
      if (now() - start > 10 || calls >= 1 << 22) return calls;
      calls *= 2;
    }
  });
  const best = sides.map(() => Infinity);
  const until = now() + budgetMs;
  let rounds = 0;
  while (rounds < 5 || now() < until) {
    sides.forEach((work, side) => {
      const calls = batches[side];
      const start = now();
      for (let i = 0; i < calls; i++) work();
      best[side] = Math.min(best[side], (now() - start) / calls);
    });
    rounds += 1;
    if (rounds >= 200) break;
  }
  return best;
}

/**
 * Times every case; returns rows `{name, bytes, ours, reference, ratio}`
 * (milliseconds per call). `ours` and `reference` are the two modules'
 * exports; `agree` checks that both give the same result first.
 */
export function run(ours, reference, { message, prose, block, budgetMs = 300, agree }) {
  const rows = [];
  const time = (name, units, mine, theirs) => {
    agree(name, mine(), theirs());
    const [a, b] = interleaved([mine, theirs], budgetMs);
    if (!(a > 0 && b > 0)) throw new Error(`${name}: the clock measured no time`);
    rows.push({ name, units, ours: a, reference: b, ratio: b / a });
  };
  for (const [name, body] of bodies(message)) {
    time(`parse ${name}`, body.length, () => ours.parseQuestionMessage(body), () => reference.parseQuestionMessage(body));
  }
  time("serialize canonical", message.length, () => ours.serializeQuestionMessage(prose, block), () => reference.serializeQuestionMessage(prose, block));
  const large = largeBlock();
  time("serialize 20 x 2,000-unit prompts", 40000, () => ours.serializeQuestionMessage(prose, large), () => reference.serializeQuestionMessage(prose, large));
  return rows;
}

/** The rows as a table: time per call, per MiB, and the ratio. */
export function table(engine, rows) {
  const pad = (text, width) => String(text).padEnd(width);
  const lines = [`${engine}: the package against the reference (ratio = reference time / package time; >= 1.0 is as fast or faster)`];
  lines.push(`${pad("case", 38)}${pad("package", 14)}${pad("reference", 14)}ratio`);
  for (const row of rows) {
    const figure = (ms) => (row.units >= MIB / 2 ? `${(ms * MIB / row.units).toFixed(3)} ms/MiB` : `${(ms * 1000).toFixed(1)} µs`);
    lines.push(`${pad(row.name, 38)}${pad(figure(row.ours), 14)}${pad(figure(row.reference), 14)}${row.ratio.toFixed(2)}`);
  }
  const slowest = rows.reduce((low, row) => (row.ratio < low.ratio ? row : low), rows[0]);
  lines.push(`lowest ratio: ${slowest.ratio.toFixed(2)} (${slowest.name})`);
  return lines.join("\n");
}
