//! Parse and serialize throughput: the canonical message, and bodies shaped
//! to stress the fence scanner and the payload reader (prose, inline code,
//! backtick and marker lines that never close, near-miss fences, a fence of
//! half a million backticks, a payload of thousands of questions), at 1 MiB
//! and from 64 KiB to 4 MiB to show time grows linearly. Run with
//! `cargo bench -p index-question-block --bench question_block`; pass a
//! group name (`parse-1MiB`) to run one group.

// A benchmark reports setup mistakes by panicking, and criterion's macros
// generate undocumented items.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use index_question_block::fixture::{
    QUESTION_MESSAGE_FIXTURE, QUESTION_PROSE_FIXTURE, question_block_fixture,
};
use index_question_block::{parse_question_message, serialize_question_message};
use std::hint::black_box;

const MIB: usize = 1 << 20;

/// `prose`, then the canonical block.
fn big_body(prose: &str) -> String {
    let mut body = prose.to_owned();
    body.push_str("\n\n");
    body.push_str(QUESTION_MESSAGE_FIXTURE);
    body
}

fn canonical(c: &mut Criterion) {
    let block = question_block_fixture();
    let mut group = c.benchmark_group("canonical");
    group.throughput(Throughput::Bytes(QUESTION_MESSAGE_FIXTURE.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| parse_question_message(black_box(QUESTION_MESSAGE_FIXTURE)))
    });
    group.bench_function("serialize", |b| {
        b.iter(|| serialize_question_message(black_box(QUESTION_PROSE_FIXTURE), black_box(&block)))
    });
    group.finish();
}

/// `line` repeated to about `size` bytes.
fn repeated(line: &str, size: usize) -> String {
    line.repeat(size / line.len())
}

/// A block of `count` distinct questions, as a message (too many for the
/// contract, so refused: the reader must not read them all first).
fn many_questions(count: usize) -> String {
    let questions: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "    {{\"prompt\": \"Question number {i}, asked plainly?\", \"opportunityId\": \"9d2e7a41-c3b8-4f05-a6e9-{i:012x}\"}}"
            )
        })
        .collect();
    format!(
        "Prose.\n\n```index-questions\n{{\"version\": 1, \"questions\": [\n{}\n]}}\n```",
        questions.join(",\n")
    )
}

/// Every body shape the scanner must keep at memory speed, at about
/// `size` bytes, with whether it is a question message.
fn shapes(size: usize) -> Vec<(&'static str, String, bool)> {
    let fence = "`".repeat(size / 2);
    vec![
        (
            "long-prose",
            big_body(&repeated(
                "Plain prose about a negotiation, going on for a while. ",
                size,
            )),
            true,
        ),
        (
            "backtick-lines",
            big_body(&repeated("```\n````\n`````rust\n", size)),
            true,
        ),
        (
            "marker-lines",
            big_body(&repeated("```index-questions\n", size)),
            true,
        ),
        (
            "no-block",
            repeated("Plain prose with no block at all, going on and on. ", size),
            false,
        ),
        (
            "inline-code",
            repeated("Use `x` or `y`, then `z` again. ", size),
            false,
        ),
        (
            "inline-code-unclosed",
            format!(
                "```index-questions\n{}",
                repeated("Use `x` or `y`, then `z` again.\n", size)
            ),
            false,
        ),
        (
            "marker-mid-line",
            repeated("see ```index-questions here ", size),
            false,
        ),
        (
            "marker-lines-unclosed-lf",
            repeated("```index-questions\n", size),
            false,
        ),
        (
            "marker-lines-unclosed-cr",
            repeated("```index-questions\r", size),
            false,
        ),
        (
            "marker-lines-unclosed-u2028",
            repeated("```index-questions\u{2028}", size),
            false,
        ),
        (
            "near-miss-lines-unclosed",
            format!(
                "```index-questions\n{}",
                repeated("```` not a close\n", size)
            ),
            false,
        ),
        (
            "tick-space-lines-unclosed",
            format!("```index-questions\n{}", repeated("``` x\n", size)),
            false,
        ),
        ("too-many-questions", many_questions(size / 100), false),
        (
            "long-fence",
            format!(
                "{fence}index-questions\n{{\"version\": 1, \"questions\": [{{\"prompt\": \"Q?\", \"opportunityId\": \"9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4\"}}]}}\n{fence}"
            ),
            true,
        ),
    ]
}

fn one_mebibyte(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse-1MiB");
    group.sample_size(30);
    for (name, body, parses) in shapes(MIB) {
        assert_eq!(parse_question_message(&body).is_some(), parses, "{name}");
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &body, |b, body| {
            b.iter(|| parse_question_message(black_box(body)))
        });
    }
    group.finish();
}

/// Time must grow linearly with the body: every shape from 64 KiB to 4 MiB.
fn linearity(c: &mut Criterion) {
    for kib in [64usize, 256, 1024, 4096] {
        let mut group = c.benchmark_group(format!("parse-{kib}KiB"));
        group.sample_size(10);
        for (name, body, _) in shapes(kib * 1024) {
            group.throughput(Throughput::Bytes(body.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(name), &body, |b, body| {
                b.iter(|| parse_question_message(black_box(body)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, canonical, one_mebibyte, linearity);
criterion_main!(benches);
