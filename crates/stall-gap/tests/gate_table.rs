//! The gate's own table in fifteen languages (`tests/data/gate_table.txt`):
//! each kind of leak and attack written the ways its languages write it, in
//! every field, and ordinary questions shaped like them. Prints recall and
//! precision by kind and by language, and every wrong verdict
//! (`cargo test -p index-stall-gap --test gate_table -- --nocapture`).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::{BTreeMap, BTreeSet};

use index_question_block::{QuestionOption, StructuredQuestion};
use index_stall_gap::check_authored_negotiation_question;

const DATA: &str = include_str!("data/gate_table.txt");

/// The kinds a row may be; all but `benign` must be refused.
const KINDS: [&str; 7] = [
    "contact",
    "identifier",
    "name",
    "echo",
    "instruction",
    "markup",
    "benign",
];

/// The fewest languages each kind must be written in.
const MIN_LANGUAGES: usize = 12;
/// Refused unsafe rows over unsafe rows, at least.
const MIN_RECALL: f64 = 0.95;
/// Refused unsafe rows over refused rows, at least.
const MIN_PRECISION: f64 = 0.97;

struct Row {
    kind: &'static str,
    lang: String,
    question: StructuredQuestion,
    names: Vec<String>,
    sources: Vec<String>,
    line: usize,
}

/// A question whose other fields say nothing, with `text` in `field`.
fn question(field: &str, text: &str) -> StructuredQuestion {
    let mut question = StructuredQuestion {
        title: "Next step".to_owned(),
        prompt: "How should the retry go on?".to_owned(),
        options: vec![
            QuestionOption {
                label: "Go ahead".to_owned(),
                description: "The retry goes ahead on that basis.".to_owned(),
            },
            QuestionOption {
                label: "Hold".to_owned(),
                description: "The retry leaves it out.".to_owned(),
            },
        ],
        multi_select: false,
    };
    let slot = match field {
        "title" => &mut question.title,
        "prompt" => &mut question.prompt,
        "label" => &mut question.options[0].label,
        "description" => &mut question.options[0].description,
        other => panic!("no field {other}"),
    };
    *slot = text.to_owned();
    question
}

fn rows() -> Vec<Row> {
    let mut names: Vec<String> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (index, line) in DATA.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(negotiation) = line.strip_prefix("@ ") {
            let mut parts = negotiation.split(" | ");
            names = parts
                .next()
                .unwrap_or_default()
                .split(';')
                .map(|name| name.trim().to_owned())
                .collect();
            sources = parts.map(|text| text.trim().to_owned()).collect();
            continue;
        }
        let (head, text) = line
            .split_once(" | ")
            .unwrap_or_else(|| panic!("line {}: `kind lang field | text`", index + 1));
        let [kind, lang, field] = head.split_whitespace().collect::<Vec<_>>()[..] else {
            panic!("line {}: `kind lang field`", index + 1)
        };
        let kind = KINDS
            .iter()
            .find(|k| **k == kind)
            .unwrap_or_else(|| panic!("line {}: no kind {kind}", index + 1));
        assert!(
            !names.is_empty(),
            "line {}: a row before any negotiation",
            index + 1
        );
        rows.push(Row {
            kind,
            lang: lang.to_owned(),
            question: question(field, text),
            names: names.clone(),
            sources: sources.clone(),
            line: index + 1,
        });
    }
    rows
}

/// Unsafe rows refused and passed, benign rows refused and passed.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    caught: usize,
    missed: usize,
    wrongly_refused: usize,
    passed: usize,
}

impl Tally {
    fn add(&mut self, unsafe_row: bool, refused: bool) {
        match (unsafe_row, refused) {
            (true, true) => self.caught += 1,
            (true, false) => self.missed += 1,
            (false, true) => self.wrongly_refused += 1,
            (false, false) => self.passed += 1,
        }
    }

    fn recall(&self) -> f64 {
        ratio(self.caught, self.caught + self.missed)
    }

    fn precision(&self) -> f64 {
        ratio(self.caught, self.caught + self.wrongly_refused)
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

#[test]
fn every_kind_in_every_language_is_refused_and_ordinary_questions_pass() {
    let rows = rows();
    let mut total = Tally::default();
    let mut by_kind: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_lang: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut languages: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for row in &rows {
        let verdict =
            check_authored_negotiation_question(&row.question, &row.names, &row.sources).err();
        let unsafe_row = row.kind != "benign";
        total.add(unsafe_row, verdict.is_some());
        by_kind
            .entry(row.kind)
            .or_default()
            .add(unsafe_row, verdict.is_some());
        by_lang
            .entry(&row.lang)
            .or_default()
            .add(unsafe_row, verdict.is_some());
        languages.entry(row.kind).or_default().insert(&row.lang);
        if unsafe_row != verdict.is_some() {
            wrong.push(format!(
                "line {} {} {}: {}",
                row.line,
                row.kind,
                row.lang,
                verdict.map_or("passed".to_owned(), |refusal| refusal.to_string())
            ));
        }
    }
    println!("kind        | rows | refused | passed | languages");
    for (kind, tally) in &by_kind {
        let (refused, passed) = if *kind == "benign" {
            (tally.wrongly_refused, tally.passed)
        } else {
            (tally.caught, tally.missed)
        };
        println!(
            "{kind:<11} | {:>4} | {refused:>7} | {passed:>6} | {}",
            refused + passed,
            languages[kind].len()
        );
    }
    println!("lang  | unsafe caught | benign refused");
    for (lang, tally) in &by_lang {
        println!(
            "{lang:<5} | {:>6} of {:>3} | {:>5} of {:>3}",
            tally.caught,
            tally.caught + tally.missed,
            tally.wrongly_refused,
            tally.wrongly_refused + tally.passed
        );
    }
    println!(
        "{} rows: recall {:.3}, precision {:.3}",
        rows.len(),
        total.recall(),
        total.precision()
    );
    for line in &wrong {
        println!("  {line}");
    }
    for kind in KINDS {
        let written_in = languages.get(kind).map_or(0, BTreeSet::len);
        assert!(
            written_in >= MIN_LANGUAGES,
            "{kind} is written in {written_in} languages"
        );
    }
    assert!(
        total.recall() >= MIN_RECALL && total.precision() >= MIN_PRECISION,
        "recall {:.3}, precision {:.3}:\n{}",
        total.recall(),
        total.precision(),
        wrong.join("\n")
    );
}
