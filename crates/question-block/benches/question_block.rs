//! Parse and serialize throughput: the canonical message, and 1 MiB bodies
//! shaped to stress the fence scanner (long prose, prose full of backtick
//! lines, prose full of marker lines). Run with
//! `cargo bench -p index-question-block --features fixture`.

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

/// `line` repeated to about 1 MiB of prose, then the canonical block.
fn big_body(line: &str) -> String {
    let mut body = line.repeat(MIB / line.len());
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

fn one_mebibyte(c: &mut Criterion) {
    let bodies = [
        (
            "long-prose",
            big_body("Plain prose about a negotiation, going on for a while. "),
        ),
        ("backtick-lines", big_body("```\n````\n`````rust\n")),
        ("marker-lines", big_body("```index-questions\n")),
    ];
    let mut group = c.benchmark_group("parse-1MiB");
    group.sample_size(30);
    for (name, body) in &bodies {
        assert!(parse_question_message(body).is_some(), "{name} must parse");
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), body, |b, body| {
            b.iter(|| parse_question_message(black_box(body)))
        });
    }
    // Bodies that are not question messages must be refused as fast.
    let refused = [
        (
            "no-block",
            "Plain prose with no block at all, going on and on. ".repeat(MIB / 52),
        ),
        (
            "unclosed-fence",
            format!(
                "```index-questions\n{}",
                "```` not a close\n".repeat(MIB / 17)
            ),
        ),
    ];
    for (name, body) in &refused {
        assert!(
            parse_question_message(body).is_none(),
            "{name} must be refused"
        );
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), body, |b, body| {
            b.iter(|| parse_question_message(black_box(body)))
        });
    }
    group.finish();
}

fn linearity(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse-marker-lines-by-size");
    group.sample_size(20);
    for kib in [64usize, 256, 1024] {
        let mut body = "```index-questions\n".repeat(kib * 1024 / 19);
        body.push_str(QUESTION_MESSAGE_FIXTURE);
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{kib}KiB")),
            &body,
            |b, body| b.iter(|| parse_question_message(black_box(body))),
        );
    }
    group.finish();
}

criterion_group!(benches, canonical, one_mebibyte, linearity);
criterion_main!(benches);
