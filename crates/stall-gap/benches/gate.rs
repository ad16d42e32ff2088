//! What the safety gate costs per question: a typical authored question
//! checked against a name and two private texts, the same question with
//! nothing private (what the private inputs add), the worst case the
//! gate admits (every field at its 600-unit limit), and a typical question
//! in Japanese.

#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use index_question_block::{QuestionOption, StructuredQuestion};
use index_stall_gap::check_authored_negotiation_question;

fn question(prompt: &str, description: &str) -> StructuredQuestion {
    let option = |label: &str| QuestionOption {
        label: label.to_owned(),
        description: description.to_owned(),
    };
    StructuredQuestion {
        title: "Pilot price".to_owned(),
        prompt: prompt.to_owned(),
        options: vec![option("Under 20k"), option("Free pilot"), option("Later")],
        multi_select: false,
    }
}

fn gate(c: &mut Criterion) {
    let names = ["Helios Grid".to_owned()];
    let sources = [
        "Both organisations run demand-response programmes in northern Europe and want forecasting help.".to_owned(),
        "Their budget ceiling is 18k because the board froze capex until Q3; they will accept a free pilot if pressed.".to_owned(),
    ];
    let typical = question(
        "What price can the retry offer for the three-month forecasting pilot?",
        "The retry quotes this price and keeps the other terms.",
    );
    let long_text = "A word or two about the pilot, its price and its dates. ".repeat(12);
    let longest = question(&long_text[..600], &long_text[..600]);
    // The word list is folded once per process; measure after that.
    check_authored_negotiation_question(&typical, &names, &sources).unwrap();
    check_authored_negotiation_question(&longest, &names, &sources).unwrap();
    c.bench_function("gate/typical question", |b| {
        b.iter(|| check_authored_negotiation_question(&typical, &names, &sources))
    });
    c.bench_function("gate/typical question, nothing private", |b| {
        b.iter(|| check_authored_negotiation_question(&typical, &[], &[]))
    });
    c.bench_function("gate/every field at 600 units", |b| {
        b.iter(|| check_authored_negotiation_question(&longest, &names, &sources))
    });
    // The same in a script and a language with other rules to run (names
    // in two scripts, unspaced text, quantities with their own units).
    let names_ja = [
        "佐藤健".to_owned(),
        "Ken Sato".to_owned(),
        "株式会社サトウ精機".to_owned(),
    ];
    let sources_ja = [
        "予算の上限は1,200万円。6月末までに発注しないと補助金が失効する。".to_owned(),
        "支払いサイトは60日までなら延ばせる。".to_owned(),
    ];
    let typical_ja = question(
        "試験導入の価格はいくらで提示しますか？三か月の需要予測の試験です。",
        "この価格で提示し、ほかの条件はそのままにします。",
    );
    check_authored_negotiation_question(&typical_ja, &names_ja, &sources_ja).unwrap();
    c.bench_function("gate/typical question in Japanese", |b| {
        b.iter(|| check_authored_negotiation_question(&typical_ja, &names_ja, &sources_ja))
    });
}

criterion_group!(benches, gate);
criterion_main!(benches);
