//! False refusals: ordinary questions with realistic options, in fifteen
//! languages, each checked against the negotiation it was written for.
//! The gate may refuse at most 1 % of them, in every language and over
//! all. Prints the rates and every
//! refusal (`cargo test -p index-stall-gap --test ordinary_questions --
//! --nocapture`).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;

use index_question_block::{QuestionOption, StructuredQuestion};
use index_stall_gap::check_authored_negotiation_question;

/// The questions, as `tests/data/ordinary_questions.txt` writes them.
const DATA: &str = include_str!("data/ordinary_questions.txt");

/// The most false refusals allowed, in tenths of a percent.
const MAX_FALSE_REFUSALS_PER_MILLE: usize = 10;

struct Negotiation {
    lang: String,
    names: Vec<String>,
    sources: Vec<String>,
}

fn options(text: &str, sets: &BTreeMap<String, Vec<QuestionOption>>) -> Vec<QuestionOption> {
    let text = text.trim();
    if let Some(name) = text.strip_prefix('%') {
        return sets
            .get(name)
            .unwrap_or_else(|| panic!("no option set {name}"))
            .clone();
    }
    text.split(" | ")
        .map(|option| {
            let (label, description) = option
                .split_once(':')
                .unwrap_or_else(|| panic!("an option without a description: {option:?}"));
            QuestionOption {
                label: label.trim().to_owned(),
                description: description.trim().to_owned(),
            }
        })
        .collect()
}

/// The negotiations, and each question with the index of its own.
fn read_data() -> (Vec<Negotiation>, Vec<(usize, StructuredQuestion)>) {
    let mut negotiations: Vec<Negotiation> = Vec::new();
    let mut sets = BTreeMap::new();
    let mut questions = Vec::new();
    for line in DATA.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(set) = line.strip_prefix('%') {
            let (name, list) = set.split_once(" = ").expect("`%name = options`");
            let parsed = options(list, &sets);
            sets.insert(name.to_owned(), parsed);
        } else if let Some(negotiation) = line.strip_prefix("@[") {
            let (lang, negotiation) = negotiation.split_once(']').expect("`@[lang] names`");
            let mut parts = negotiation.split(" | ");
            let names = parts.next().unwrap_or_default();
            negotiations.push(Negotiation {
                lang: lang.to_owned(),
                names: names.split(';').map(|n| n.trim().to_owned()).collect(),
                sources: parts.map(|s| s.trim().to_owned()).collect(),
            });
        } else {
            let mut parts = line.splitn(3, " | ");
            let (title, prompt, rest) = (
                parts.next().unwrap(),
                parts.next().expect("a prompt"),
                parts.next().expect("options"),
            );
            assert!(
                !negotiations.is_empty(),
                "a question before any negotiation"
            );
            questions.push((
                negotiations.len() - 1,
                StructuredQuestion {
                    title: title.trim().to_owned(),
                    prompt: prompt.trim().to_owned(),
                    options: options(rest, &sets),
                    multi_select: false,
                },
            ));
        }
    }
    (negotiations, questions)
}

/// The fewest languages the table is written in.
const MIN_LANGUAGES: usize = 15;

#[test]
fn ordinary_questions_are_almost_never_refused() {
    let (negotiations, questions) = read_data();
    let mut refused = Vec::new();
    // Questions and refusals, by language.
    let mut by_lang: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (index, question) in &questions {
        let negotiation = &negotiations[*index];
        let tally = by_lang.entry(&negotiation.lang).or_default();
        tally.0 += 1;
        if let Err(refusal) =
            check_authored_negotiation_question(question, &negotiation.names, &negotiation.sources)
        {
            tally.1 += 1;
            refused.push(format!(
                "{} {refusal}: {:?} / {:?}",
                negotiation.lang, question.title, question.prompt
            ));
        }
    }
    for (lang, (asked, refused)) in &by_lang {
        println!("{lang}: {refused} of {asked} refused");
    }
    assert!(
        by_lang.len() >= MIN_LANGUAGES,
        "{} languages",
        by_lang.len()
    );
    for (lang, (asked, refused_here)) in &by_lang {
        assert!(
            refused_here * 1000 <= asked * MAX_FALSE_REFUSALS_PER_MILLE,
            "{lang}: {refused_here} of {asked} refused:\n{}",
            refused.join("\n")
        );
    }
    println!(
        "{} ordinary questions, {} refused ({:.2} %)",
        questions.len(),
        refused.len(),
        refused.len() as f64 * 100.0 / questions.len() as f64
    );
    for line in &refused {
        println!("  {line}");
    }
    assert!(questions.len() >= 300, "{} questions", questions.len());
    assert!(
        refused.len() * 1000 <= questions.len() * MAX_FALSE_REFUSALS_PER_MILLE,
        "{} of {} refused:\n{}",
        refused.len(),
        questions.len(),
        refused.join("\n")
    );
}
