//! Every fence search checked against a literal evaluation of the two
//! regular expressions, and the cases at block and window boundaries.

use super::blocks::WINDOW;
use super::*;
use proptest::prelude::*;

#[test]
fn open_fence_takes_cr_only_before_a_terminator_or_the_end() {
    let fence = last_open_fence("```index-questions\r\n{}").unwrap();
    assert_eq!((fence.length, fence.end), (3, 19));
    let fence = last_open_fence("```index-questions\r{}").unwrap();
    assert_eq!(fence.end, 18);
    let fence = last_open_fence("````index-questions \t").unwrap();
    assert_eq!(fence.end, 21);
}

#[test]
fn open_fence_needs_the_line_to_end_after_the_marker() {
    assert!(last_open_fence("```index-questions json\n").is_none());
    assert!(last_open_fence(" ```index-questions\n").is_none());
    assert!(last_open_fence("``index-questions\n").is_none());
    assert!(last_open_fence("```index-questions\u{b}\n").is_none());
    assert!(last_open_fence("x\u{2028}```index-questions\u{2029}").is_some());
    // U+0228 also ends in 0xA8, but does not end a line.
    assert!(last_open_fence("x\u{228}```index-questions\n").is_none());
}

#[test]
fn last_fence_wins() {
    let body = "```index-questions\n```\n````index-questions\n";
    assert_eq!(last_open_fence(body).unwrap().length, 4);
}

#[test]
fn close_fence_is_exactly_the_opening_length() {
    assert_eq!(first_close_fence("````\n```", 3).unwrap().start, 5);
    assert!(first_close_fence("```` \n", 3).is_none());
    assert_eq!(first_close_fence("x\r```\t\r", 3).unwrap().end, 7);
}

#[test]
fn fences_are_found_across_and_at_block_boundaries() {
    for pad in 0..140 {
        let prose = "x".repeat(pad);
        let body = format!("{prose}\n```index-questions\n{{}}\n```\n");
        let open = last_open_fence(&body).unwrap();
        assert_eq!(open.start, pad + 1, "pad {pad}");
        let rest = body.get(open.end + 1..).unwrap();
        assert_eq!(first_close_fence(rest, 3).unwrap().start, 3, "pad {pad}");
    }
}

#[test]
fn closing_lines_ending_across_a_block_boundary_are_found() {
    // Every split of the line's blanks and three-byte terminators (or of
    // a line that does not end there) across a 64-byte boundary.
    for pad in 50..70 {
        for blanks in ["", " ", "\t ", "   "] {
            for end in ["\u{2028}", "\u{2029}", "\r", "\n", "x", "\u{2027}", ""] {
                let text = format!("{}\n```{blanks}{end}```\n", "p".repeat(pad));
                let found = first_close_fence(&text, 3).map(|f| (f.start, f.end));
                assert_eq!(found, naive::first_close(&text, 3), "{text:?}");
            }
        }
    }
}

#[test]
fn fences_are_found_across_search_windows() {
    for pad in WINDOW - 40..WINDOW + 40 {
        let body = format!("{}\n```index-questions\n{{}}\n```\n", "x".repeat(pad));
        assert_eq!(last_open_fence(&body).unwrap().start, pad + 1, "pad {pad}");
        // The backticks and the marker in different windows.
        let body = format!("{}\n{}index-questions\n", "x".repeat(pad), "`".repeat(90));
        assert_eq!(last_open_fence(&body).unwrap().length, 90, "pad {pad}");
    }
    let far = format!("```index-questions\n{}", "prose\n".repeat(3 * WINDOW));
    assert_eq!(last_open_fence(&far).unwrap().start, 0);
}

#[test]
fn backtick_runs_are_counted_at_every_length() {
    for len in 0..40 {
        let text = format!("{}x``", "`".repeat(len));
        assert_eq!(backtick_run(text.as_bytes(), 0), len);
        for pad in 0..3 {
            let text = format!("{}``x{}", "y".repeat(pad), "`".repeat(len));
            assert_eq!(backtick_run_before(text.as_bytes(), text.len()), len);
            assert_eq!(backtick_run_before(text.as_bytes(), pad + 2), 2);
        }
    }
    assert_eq!(longest_backtick_run("a``b````c`"), 4);
    assert_eq!(longest_backtick_run("none"), 0);
}

/// The reference's two regular expressions, evaluated at every position
/// in the most literal way: no masks, no skipping.
mod naive {
    fn ends_line(c: char) -> bool {
        matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
    }

    fn line_start(text: &str, at: usize) -> bool {
        text.get(..at)
            .and_then(|before| before.chars().next_back())
            .is_none_or(ends_line)
    }

    /// `[ \t]*\r?$` at `at`.
    fn tail(text: &str, at: usize) -> Option<usize> {
        let rest = text.get(at..)?;
        let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let after = at + blanks;
        let ends_at = |i: usize| {
            text.get(i..)?
                .chars()
                .next()
                .is_none_or(ends_line)
                .then_some(i)
        };
        if text.get(after..)?.starts_with('\r')
            && let Some(end) = ends_at(after + 1)
        {
            return Some(end);
        }
        ends_at(after)
    }

    fn run_at(text: &str, at: usize) -> usize {
        text.get(at..)
            .map_or(0, |rest| rest.len() - rest.trim_start_matches('`').len())
    }

    pub(super) fn last_open(text: &str) -> Option<(usize, usize, usize)> {
        let mut found = None;
        let mut at = 0;
        while at <= text.len() {
            let run = run_at(text, at);
            let marker_end = at + run + "index-questions".len();
            if text.is_char_boundary(at)
                && line_start(text, at)
                && run >= 3
                && text
                    .get(at + run..)
                    .is_some_and(|r| r.starts_with("index-questions"))
                && let Some(end) = tail(text, marker_end)
            {
                found = Some((at, run, end));
                at = end.max(at + 1);
                continue;
            }
            at += 1;
        }
        found
    }

    pub(super) fn first_close(text: &str, length: usize) -> Option<(usize, usize)> {
        (0..=text.len()).find_map(|at| {
            let closes =
                text.is_char_boundary(at) && line_start(text, at) && run_at(text, at) == length;
            closes
                .then(|| tail(text, at + length))
                .flatten()
                .map(|end| (at, end))
        })
    }
}

fn body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("`"),
        Just("```"),
        Just("````"),
        Just("index-questions"),
        Just("\n"),
        Just("\r"),
        Just("\r\n"),
        Just("\u{2028}"),
        Just("\u{2029}"),
        Just("\u{228}"),
        Just(" "),
        Just("\t"),
        Just("\t  \t    \t  \t    \t  \t    "),
        Just("``````````````````````````````````````````````````````````````````````"),
        Just("x"),
        Just("prose "),
        Just("{}"),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn the_scanner_agrees_with_the_regular_expressions(text in body(), pad in 0usize..130) {
        // Padding moves every fence across the 64-byte block boundaries.
        let text = format!("{}{text}", "p".repeat(pad));
        let expected = naive::last_open(&text);
        let open = last_open_fence(&text).map(|f| (f.start, f.length, f.end));
        prop_assert_eq!(open, expected);
        let open = ticks::last_open_fence(text.as_bytes()).map(|f| (f.start, f.length, f.end));
        prop_assert_eq!(open, expected, "the browser build's search");
        for length in [1, 2, 3, 4, 70] {
            let expected = naive::first_close(&text, length);
            let close = first_close_fence(&text, length).map(|f| (f.start, f.end));
            prop_assert_eq!(close, expected);
            let close = ticks::first_close_fence(text.as_bytes(), length).map(|f| (f.start, f.end));
            prop_assert_eq!(close, expected, "the browser build's search");
        }
    }
}
