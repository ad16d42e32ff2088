//! Output: plain text for people (aligned, coloured only on a terminal and
//! never under `NO_COLOR`), or JSON for machines.

use anstyle::{AnsiColor, Style};
use serde::Serialize;

pub(crate) const BOLD: Style = Style::new().bold();
pub(crate) const DIM: Style = Style::new().dimmed();
pub(crate) const GOOD: Style = AnsiColor::Green.on_default().bold();
pub(crate) const BAD: Style = AnsiColor::Red.on_default().bold();
pub(crate) const NOTE: Style = AnsiColor::Yellow.on_default();
pub(crate) const COMMAND: Style = AnsiColor::Cyan.on_default().bold();

/// Where a command writes, and in which form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Out {
    pub(crate) json: bool,
}

impl Out {
    /// A line of text for people (ignored in JSON mode).
    pub(crate) fn line(&self, text: impl AsRef<str>) {
        if !self.json {
            anstream::println!("{}", text.as_ref());
        }
    }

    /// What happened, for people, on standard error (ignored in JSON
    /// mode): for commands whose standard output is their product.
    pub(crate) fn status(&self, text: impl AsRef<str>) {
        if !self.json {
            anstream::eprintln!("{}", text.as_ref());
        }
    }

    /// A machine-readable value on a line of its own, as JSON Lines are
    /// written (ignored in text mode).
    pub(crate) fn json_line<T: Serialize>(&self, value: &T) {
        if self.json {
            match serde_json::to_string(value) {
                Ok(text) => anstream::println!("{text}"),
                Err(err) => anstream::eprintln!("error: could not write JSON: {err}"),
            }
        }
    }

    /// A machine-readable value (ignored in text mode).
    pub(crate) fn json<T: Serialize>(&self, value: &T) {
        if self.json {
            match serde_json::to_string_pretty(value) {
                Ok(text) => anstream::println!("{text}"),
                Err(err) => anstream::eprintln!("error: could not write JSON: {err}"),
            }
        }
    }
}

impl Out {
    /// Reports a failure: a sentence on standard error always, and the JSON
    /// error on standard output under `--json`.
    pub(crate) fn failure(&self, failure: &crate::failure::Failure) {
        if let crate::failure::Failure::Ended(_) = failure {
            // The command said what happened; this is no error.
            return;
        }
        if let (true, Some(json)) = (self.json, failure.to_json()) {
            anstream::println!("{json}");
        }
        anstream::eprintln!(
            "{} {}",
            styled(BAD, "error:"),
            index_negotiation_store::ErrorChain(failure)
        );
    }
}

/// Writes `bytes` to standard output as they are, for output made whole
/// elsewhere (a completion script). A reader that has gone (`index … |
/// head -1`) is not a failure: the rest is dropped quietly and the command
/// ends with its own status, as `anstream::println!` does for every other
/// line this tool prints.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), crate::failure::Failure> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(
            crate::failure::Failure::Input(format!("could not write to standard output: {err}")),
        ),
        _ => Ok(()),
    }
}

/// `text` in `style` (anstream drops the codes where colour is off).
pub(crate) fn styled(style: Style, text: impl std::fmt::Display) -> String {
    format!("{style}{text}{style:#}")
}

/// Rows aligned in columns; the header dimmed. Width counts characters.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let render = |cells: Vec<String>| {
        let mut line = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let width = widths.get(i).copied().unwrap_or(0);
            if i + 1 == columns {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        line.trim_end().to_owned()
    };
    let mut out = styled(
        DIM,
        render(header.iter().map(|h| (*h).to_owned()).collect()),
    );
    for row in rows {
        out.push('\n');
        out.push_str(&render(row.clone()));
    }
    out
}

/// Reads a file, or standard input for `-`.
pub(crate) fn read_input(path: &std::path::Path) -> Result<String, crate::failure::Failure> {
    use std::io::{IsTerminal, Read};
    if path.as_os_str() == "-" {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            // Without this the command would seem to hang.
            anstream::eprintln!(
                "{}",
                styled(
                    DIM,
                    "Reading standard input: type or paste, then end it with Ctrl-D (or give a file)."
                )
            );
        }
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text).map_err(|err| {
            crate::failure::Failure::Input(format!("could not read standard input: {err}"))
        })?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|err| {
        crate::failure::Failure::Input(format!("could not read {}: {err}", path.display()))
    })
}
