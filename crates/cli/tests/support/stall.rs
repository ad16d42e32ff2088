//! Negotiations between dana and sam, made with the `index` tool: opened,
//! or stalled (the first round played to the turn limit without
//! agreement, ready to park).

// Each test binary uses its own part of this.
#![allow(dead_code)]

use std::path::Path;

use crate::support;

/// Runs `index ARGS --db DB` in `dir`, which must succeed.
pub fn run(dir: &Path, db: &str, args: &[&str]) {
    let mut full = args.to_vec();
    full.extend_from_slice(&["--db", db]);
    let out = support::index(dir, &full, None, &[]);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Opens dana ↔ sam on `id` in `db`, dana to move first.
pub fn open(dir: &Path, db: &str, id: &str) {
    open_between(dir, db, id, "dana", "sam");
}

/// Opens `first` ↔ `second` on `id` in `db`, `first` to move first.
pub fn open_between(dir: &Path, db: &str, id: &str, first: &str, second: &str) {
    run(
        dir,
        db,
        &[
            "negotiation",
            "open",
            "--initiator",
            first,
            "--initiator-intent",
            &format!("hire-{id}"),
            "--responder",
            second,
            "--responder-intent",
            &format!("join-{id}"),
            "--opportunity-id",
            id,
        ],
    );
}

/// Opens dana ↔ sam on `id` in `db` and plays a round to the turn limit.
pub fn stall(dir: &Path, db: &str, id: &str) {
    stall_between(dir, db, id, "dana", "sam");
}

/// Opens `first` ↔ `second` on `id` in `db` and plays a round to the turn
/// limit.
pub fn stall_between(dir: &Path, db: &str, id: &str, first: &str, second: &str) {
    open_between(dir, db, id, first, second);
    for n in 0..12 {
        let (who, action) = if n % 2 == 0 {
            (first, "propose")
        } else {
            (second, "counter")
        };
        run(
            dir,
            db,
            &[
                "negotiation",
                "turn",
                id,
                "--as",
                who,
                "--action",
                action,
                "--message",
                &format!("Offer {n}"),
            ],
        );
    }
}
