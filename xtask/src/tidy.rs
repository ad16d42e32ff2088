//! Cheap guards on the source tree itself, run as tests.

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.ends_with("target") {
                    rust_files(&path, out);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                out.push(path);
            }
        }
    }

    fn sources() -> Vec<(PathBuf, String)> {
        let root = crate::workspace_root();
        let mut files = Vec::new();
        rust_files(&root.join("crates"), &mut files);
        rust_files(&root.join("xtask"), &mut files);
        files
            .into_iter()
            .map(|path| {
                let text = fs::read_to_string(&path).unwrap();
                (path, text)
            })
            .collect()
    }

    #[test]
    fn every_source_file_says_what_it_holds() {
        let missing: Vec<_> = sources()
            .into_iter()
            .filter(|(_, text)| !text.starts_with("//!"))
            .map(|(path, _)| path)
            .collect();
        assert!(
            missing.is_empty(),
            "files without a leading //! line: {missing:?}"
        );
    }

    /// A test that cannot run says why (`#[ignore = "needs …"]`), so the
    /// summary lists it as not run; a bare ignore hides why.
    #[test]
    fn no_stubs_or_silently_ignored_tests() {
        // Assembled so this file does not match itself.
        let banned = [
            ["#[", "ignore]"].concat(),
            ["#[", "should_panic"].concat(),
            ["todo", "!("].concat(),
            ["unimplemented", "!("].concat(),
            ["dbg", "!("].concat(),
        ];
        let mut found = Vec::new();
        for (path, text) in sources() {
            for pattern in &banned {
                if text.contains(pattern.as_str()) {
                    found.push(format!("{}: {pattern}", path.display()));
                }
            }
        }
        assert!(found.is_empty(), "{found:?}");
    }

    /// Every conformance case (a public async function taking a fresh
    /// `store: S`, in any module of the suite's folder) is in the macro's
    /// list, which generates the backends' tests, and the list names
    /// nothing else: a case written but not listed would never run.
    #[test]
    fn the_conformance_macro_lists_every_case() {
        let dir = crate::workspace_root().join("crates/negotiation-store/src/conformance");
        let mut text = String::new();
        for entry in fs::read_dir(dir).unwrap() {
            text.push_str(&fs::read_to_string(entry.unwrap().path()).unwrap());
            text.push('\n');
        }
        let mut written = std::collections::BTreeSet::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("\npub async fn ") {
            rest = &rest[at + "\npub async fn ".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let signature = &rest[..rest.find('{').unwrap()];
            if signature.contains("store: S)") || signature.contains("store: S,") {
                written.insert(name);
            }
        }
        let list_start = text.find("@cases [$attr] $make;").unwrap();
        let list = &text[list_start..list_start + text[list_start..].find(");").unwrap()];
        let listed: std::collections::BTreeSet<String> = list
            .lines()
            .skip(1)
            .map(|line| line.trim().trim_end_matches(',').to_owned())
            .filter(|name| !name.is_empty())
            .collect();
        assert!(written.len() > 10, "found only {written:?}");
        assert_eq!(written, listed);
    }

    /// Whether `lines` start with a serde `rename_all` (not a tagged one)
    /// on an enum whose variants are all units.
    fn renames_a_unit_only_enum(lines: &[&str]) -> bool {
        let renamed = ["#[serde(", "rename_all = "].concat();
        let Some((first, rest)) = lines.split_first() else {
            return false;
        };
        let first = first.trim_start();
        if !first.starts_with(&renamed) || first.contains("tag") {
            return false;
        }
        let mut after = rest.iter().skip_while(|l| l.trim_start().starts_with("#["));
        if !after.next().is_some_and(|l| l.contains("pub enum ")) {
            return false;
        }
        after
            .take_while(|l| l.trim() != "}")
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && !l.starts_with("///"))
            .all(|l| {
                l.strip_suffix(',')
                    .is_some_and(|name| name.chars().all(|c| c.is_ascii_alphanumeric()))
            })
    }

    /// Whether `lines` start a method that names each variant with a
    /// string literal (`Self::X => "x"` in the match under its first line).
    fn writes_a_name_table(lines: &[&str]) -> bool {
        let table = ["=> ", "\""].concat();
        let names_a_variant = [
            "pub fn as_str(self)",
            "pub fn code(self)",
            "pub fn name(self)",
        ];
        lines.first().is_some_and(|l| {
            let l = l.trim_start();
            names_a_variant.iter().any(|f| l.starts_with(f))
        }) && lines.iter().skip(2).take(2).any(|l| l.contains(&table))
    }

    /// A closed set of strings on the wire is declared with
    /// `index_js::wire_enum!`, which writes each name once: no unit-only
    /// enum renamed by serde (its names would be spelled again by any
    /// `as_str`), and no hand-written table from variants to strings.
    #[test]
    fn closed_string_sets_are_wire_enums() {
        let mut found = Vec::new();
        for (path, text) in sources() {
            let lines: Vec<&str> = text.lines().collect();
            for number in 0..lines.len() {
                let rest = lines.get(number..).unwrap_or_default();
                if renames_a_unit_only_enum(rest) || writes_a_name_table(rest) {
                    found.push(format!("{}:{}", path.display(), number + 1));
                }
            }
        }
        assert!(
            found.is_empty(),
            "declare these with index_js::wire_enum!: {found:?}"
        );
    }

    /// The library and binary code reads the environment only where
    /// docs/ARCHITECTURE.md says it does; everything else takes the value
    /// as an argument, so it can be tested without the process. (Tests,
    /// benches and the xtask read their own settings freely.)
    #[test]
    fn the_environment_is_read_only_where_the_architecture_says() {
        let allowed = [
            (
                "crates/negotiation/src/ask.rs",
                "pub fn negotiation_ask_rounds_cap()",
            ),
            (
                "crates/negotiation/src/timeout.rs",
                "pub fn resolve_turn_timeout_ms(",
            ),
            ("crates/stall-gap/src/openai.rs", "pub fn from_env()"),
            ("crates/cli/src/database.rs", "pub(crate) fn select("),
            ("crates/cli/src/man.rs", "fn default_dirs()"),
            ("crates/cli/src/traces.rs", "pub(crate) fn start("),
        ];
        let read = ["env::", "var"].concat();
        let mut found = Vec::new();
        for (path, text) in sources() {
            let relative = path.strip_prefix(crate::workspace_root()).unwrap_or(&path);
            if !relative.starts_with("crates") || !relative.iter().any(|p| p == "src") {
                continue;
            }
            let lines: Vec<&str> = text.lines().collect();
            for (number, line) in lines.iter().enumerate() {
                if !line.contains(&read) || line.trim_start().starts_with("//") {
                    continue;
                }
                // The function the read is in: the nearest `fn` line above.
                let inside = lines
                    .iter()
                    .take(number + 1)
                    .rev()
                    .find(|l| l.contains("fn "))
                    .map(|l| l.trim());
                let permitted = allowed.iter().any(|(file, function)| {
                    relative.ends_with(file) && inside.is_some_and(|f| f.starts_with(function))
                });
                if !permitted {
                    found.push(format!("{}:{}", relative.display(), number + 1));
                }
            }
        }
        assert!(
            found.is_empty(),
            "environment reads outside the named places: {found:?}"
        );
    }

    /// An error either shows its cause in its message or chains it as its
    /// source, never both: error reporters print the chain, so a cause in
    /// both places is printed twice (`#[error(transparent)]` forwards both
    /// and is fine).
    #[test]
    fn no_error_shows_and_chains_the_same_cause() {
        let chained = [["#[", "from]"].concat(), ["#[", "source]"].concat()];
        let mut found = Vec::new();
        for (path, text) in sources() {
            let lines: Vec<&str> = text.lines().collect();
            for (number, pair) in lines.windows(2).enumerate() {
                let [message, field] = pair else { continue };
                let shows = message.trim_start().starts_with("#[error(\"")
                    && ["{0}", "{source}"]
                        .iter()
                        .any(|cause| message.contains(cause));
                if shows && chained.iter().any(|mark| field.contains(mark.as_str())) {
                    found.push(format!("{}:{}", path.display(), number + 1));
                }
            }
        }
        assert!(found.is_empty(), "{found:?}");
    }

    /// The top-level module a source file belongs to, within its crate's
    /// `src/` (`None` for the crate root and for files outside `src/`).
    fn module_of(path: &Path) -> Option<(PathBuf, String)> {
        let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
        let src = parts.iter().rposition(|p| *p == "src")?;
        let krate: PathBuf = parts.get(..src)?.iter().collect();
        let first = *parts.get(src + 1)?;
        let module = first.strip_suffix(".rs").unwrap_or(first);
        (!matches!(module, "lib" | "main")).then(|| (krate, module.to_owned()))
    }

    /// The modules of its own crate a file names as `crate::module`.
    fn crate_paths(text: &str) -> std::collections::BTreeSet<String> {
        let mut found = std::collections::BTreeSet::new();
        for (i, _) in text.match_indices("crate::") {
            let preceded_by_ident = text
                .get(..i)
                .and_then(|before| before.chars().next_back())
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
            if preceded_by_ident {
                continue;
            }
            let rest = text.get(i + "crate::".len()..).unwrap_or_default();
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if let Some(open) = rest.strip_prefix('{') {
                // `crate::{a, b::c}`: every first segment inside the braces.
                let inside = open.split('}').next().unwrap_or_default();
                for item in inside.split(',') {
                    let head: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    found.insert(head);
                }
            } else {
                found.insert(name);
            }
        }
        found
    }

    /// A crate's source without tests and comment lines: what its code
    /// names. Tests inside a module may reach anywhere, and comments name
    /// what they explain.
    fn code_of(text: &str) -> String {
        text.split("#[cfg(test)]")
            .next()
            .unwrap_or_default()
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The names a crate root re-exports, each with the module it comes
    /// from (`pub use module::{A, b::C};` gives `A` and `C` from `module`).
    fn reexports(lib: &str) -> std::collections::BTreeMap<String, String> {
        let mut found = std::collections::BTreeMap::new();
        for statement in lib.split(';') {
            let Some(path) = statement.trim().strip_prefix("pub use ") else {
                continue;
            };
            let Some((module, rest)) = path.split_once("::") else {
                continue;
            };
            let names = rest.trim_start_matches('{').trim_end_matches('}');
            for name in names.split(',') {
                let last = name.trim().rsplit("::").next().unwrap_or_default();
                let last = last.rsplit(" as ").next().unwrap_or_default().trim();
                if !last.is_empty() {
                    found.insert(last.to_owned(), module.trim().to_owned());
                }
            }
        }
        found
    }

    /// The modules `lib` (a crate root's code) uses itself: through a
    /// private `use`, or a `module::` path outside `mod` and `pub use`.
    fn root_uses(
        lib: &str,
        modules: &std::collections::BTreeSet<String>,
    ) -> std::collections::BTreeSet<String> {
        let mut found = std::collections::BTreeSet::new();
        for statement in lib.split(';') {
            let statement = statement.trim();
            let skipped = ["pub use ", "pub mod ", "mod ", "pub(crate) mod "]
                .iter()
                .any(|prefix| {
                    statement
                        .lines()
                        .last()
                        .unwrap_or_default()
                        .trim_start()
                        .starts_with(prefix)
                });
            if skipped {
                continue;
            }
            for module in modules {
                let named = statement
                    .match_indices(&format!("{module}::"))
                    .any(|(i, _)| {
                        !statement
                            .get(..i)
                            .and_then(|before| before.chars().next_back())
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                    });
                if named {
                    found.insert(module.clone());
                }
            }
        }
        found
    }

    /// Finds every circle among a crate's modules, its root (`lib`)
    /// included, however long: the strongly connected parts of the graph
    /// of which module names which, with more than one module in them.
    fn circles(
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    ) -> Vec<Vec<String>> {
        use std::collections::BTreeSet;
        // Two passes of depth-first search (Kosaraju): finishing order on
        // the graph, then the parts on its reverse in that order.
        fn finish<'a>(
            node: &'a str,
            graph: &'a std::collections::BTreeMap<String, BTreeSet<String>>,
            seen: &mut BTreeSet<&'a str>,
            order: &mut Vec<&'a str>,
        ) {
            if !seen.insert(node) {
                return;
            }
            for next in graph.get(node).into_iter().flatten() {
                finish(next, graph, seen, order);
            }
            order.push(node);
        }
        let mut reverse: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        for (from, tos) in graph {
            for to in tos {
                reverse.entry(to.clone()).or_default().insert(from.clone());
            }
        }
        let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
        for node in graph.keys() {
            finish(node, graph, &mut seen, &mut order);
        }
        let mut assigned = BTreeSet::new();
        let mut parts = Vec::new();
        for node in order.into_iter().rev() {
            let mut part = Vec::new();
            finish(node, &reverse, &mut assigned, &mut part);
            if part.len() > 1 {
                part.sort();
                parts.push(part.into_iter().map(str::to_owned).collect());
            }
        }
        parts
    }

    #[test]
    fn the_circle_finder_sees_long_circles() {
        let graph = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
            .into_iter()
            .fold(
                std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new(),
                |mut graph, (from, to)| {
                    graph
                        .entry(from.to_owned())
                        .or_default()
                        .insert(to.to_owned());
                    graph
                },
            );
        assert_eq!(
            circles(&graph),
            vec![vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]]
        );
    }

    #[test]
    fn no_modules_of_a_crate_depend_on_each_other_in_a_circle() {
        use std::collections::{BTreeMap, BTreeSet};
        // Per crate: module -> the modules it names; the root is `lib`.
        let mut graphs: BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        let mut roots: BTreeMap<PathBuf, String> = BTreeMap::new();
        let files = sources();
        for (path, text) in &files {
            if path.ends_with("src/lib.rs") {
                let krate: PathBuf = path.iter().take(path.iter().count() - 2).collect();
                roots.insert(krate, code_of(text));
                continue;
            }
            let Some((krate, module)) = module_of(path) else {
                continue;
            };
            let entry = graphs
                .entry(krate)
                .or_default()
                .entry(module.clone())
                .or_default();
            entry.extend(
                crate_paths(&code_of(text))
                    .into_iter()
                    .filter(|m| *m != module),
            );
        }
        let mut found = Vec::new();
        for (krate, graph) in &mut graphs {
            let modules: BTreeSet<String> = graph.keys().cloned().collect();
            if let Some(lib) = roots.get(krate) {
                // A name the root re-exports leads to the module it comes
                // from; any other name of the root's is the root's own.
                let reexported = reexports(lib);
                for uses in graph.values_mut() {
                    let named: Vec<String> = uses.iter().cloned().collect();
                    for name in named.into_iter().filter(|name| !modules.contains(name)) {
                        uses.remove(&name);
                        match reexported.get(&name) {
                            Some(module) => uses.insert(module.clone()),
                            None => uses.insert("lib".to_owned()),
                        };
                    }
                }
                graph.insert("lib".to_owned(), root_uses(lib, &modules));
            } else {
                for uses in graph.values_mut() {
                    uses.retain(|name| modules.contains(name));
                }
            }
            for (module, uses) in graph.iter_mut() {
                uses.remove(module);
            }
            for circle in circles(graph) {
                found.push(format!("{}: {}", krate.display(), circle.join(" -> ")));
            }
        }
        assert!(
            found.is_empty(),
            "modules that depend on each other in a circle (give what they share a module of its own):\n{}",
            found.join("\n")
        );
    }

    /// The host's transports (REST, MCP, the browser's pages) stand side by
    /// side on its service and the HTTP kit, none importing another, and
    /// the service imports no transport: the next transport is added
    /// beside them, and a change to one cannot reach the others. Only
    /// `serve`, which puts them on one listener, names them all.
    #[test]
    fn the_hosts_transports_stand_side_by_side_on_its_service() {
        let may_use: [(&str, &[&str]); 6] = [
            ("service", &["service"]),
            ("http", &["service", "http"]),
            ("rest", &["service", "http", "rest"]),
            ("mcp", &["service", "http", "mcp"]),
            ("web", &["service", "http", "web"]),
            ("oauth", &["service", "http", "oauth"]),
        ];
        let mut found = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (path, text) in sources() {
            let Ok(inside) = path.strip_prefix(crate::workspace_root().join("crates/host/src"))
            else {
                continue;
            };
            let Some(layer) = inside.iter().next().and_then(|part| part.to_str()) else {
                continue;
            };
            let Some((_, allowed)) = may_use.iter().find(|(name, _)| *name == layer) else {
                continue;
            };
            seen.insert(layer.to_owned());
            for used in crate_paths(&code_of(&text)) {
                if !allowed.contains(&used.as_str()) {
                    found.push(format!("{} uses crate::{used}", inside.display()));
                }
            }
        }
        assert_eq!(seen.len(), may_use.len(), "layers found: {seen:?}");
        assert!(found.is_empty(), "{found:#?}");
    }

    /// Where a line of code weighs the rules' internals to decide something
    /// the rules decide: it walks the round in progress (`current_round(`),
    /// compares a turn's action (`== NegotiationAction::…`,
    /// `!= NegotiationAction::…`), or counts against the turn cap
    /// (`NEGOTIATION_MAX_TURNS` beside an arithmetic or comparison
    /// operator, or a `saturating_`/`checked_`/`wrapping_` method). Naming
    /// the cap in a text is not a decision, nor is a format argument.
    fn decision_markers(line: &str) -> Vec<&'static str> {
        let mut found = Vec::new();
        if line.contains("current_round(") {
            found.push("current_round(");
        }
        for comparison in ["== NegotiationAction::", "!= NegotiationAction::"] {
            if line.contains(comparison) {
                found.push("an action compared");
            }
        }
        let cap = "NEGOTIATION_MAX_TURNS";
        for (at, _) in line.match_indices(cap) {
            let before = line.get(..at).unwrap_or_default().trim_end();
            let after = line.get(at + cap.len()..).unwrap_or_default().trim_start();
            let operator_before = (before.ends_with(['+', '-', '*', '/', '%', '<', '>'])
                && !before.ends_with("->"))
                || ["==", "!=", "<=", ">="]
                    .iter()
                    .any(|op| before.ends_with(op))
                || ["saturating_", "checked_", "wrapping_"]
                    .iter()
                    .any(|method| before.contains(method) && before.ends_with('('));
            let operator_after = after.starts_with(['+', '-', '*', '/', '%', '<', '>', '.'])
                || ["==", "!="].iter().any(|op| after.starts_with(op));
            if operator_before || operator_after {
                found.push("arithmetic on NEGOTIATION_MAX_TURNS");
            }
        }
        found
    }

    /// docs/ARCHITECTURE.md: no crate but `index-negotiation` decides a
    /// negotiation. Outside `crates/negotiation`, no library or binary code
    /// weighs the rules' internals (see [`decision_markers`]): a surface
    /// that needs the round a turn belongs to, whether talks ran to the
    /// turn cap, or where a seat stands asks the rules (`round_numbers`,
    /// `NegotiationState::ran_to_turn_cap`, `seat_standing`, …). Tests,
    /// benches and examples sit outside `src/` or under `#[cfg(test)]`
    /// and build logs freely; the two exceptions in `src/` are listed
    /// below, each with its reason.
    #[test]
    fn only_the_rules_weigh_the_rules_internals() {
        let exceptions = [
            // The conformance suite is a test kept in `src/` so every
            // backend's tests can run it: it builds logs round by round
            // and holds each store to the rules' own answers.
            "crates/negotiation-store/src/conformance/",
            // `store check` judges a file's bytes, never a move: it
            // recomputes where commits put the round marks, including the
            // schema version 4 migration's reading (a round's last accept
            // ends it), to report a damaged store.
            "crates/negotiation-store-sqlite/src/check.rs",
        ];
        let root = crate::workspace_root();
        let mut found = Vec::new();
        let mut in_the_rules = 0;
        for (path, text) in sources() {
            let relative = path.strip_prefix(&root).unwrap_or(&path);
            let name = relative.to_string_lossy().replace('\\', "/");
            if !name.starts_with("crates/") || !relative.iter().any(|part| part == "src") {
                continue;
            }
            // The code before the file's tests, comment lines aside, with
            // each line's own number.
            let hits: Vec<String> = text
                .lines()
                .enumerate()
                .take_while(|(_, line)| !line.contains("#[cfg(test)]"))
                .filter(|(_, line)| !line.trim_start().starts_with("//"))
                .flat_map(|(number, line)| {
                    let name = &name;
                    decision_markers(line)
                        .into_iter()
                        .map(move |marker| format!("{name}:{}: {marker}", number + 1))
                })
                .collect();
            if name.starts_with("crates/negotiation/") {
                in_the_rules += hits.len();
            } else if !exceptions.iter().any(|place| name.starts_with(place)) {
                found.extend(hits);
            }
        }
        // The markers find what the rules themselves write, so a marker
        // that matches nothing cannot pass this test vacuously.
        assert!(in_the_rules > 0, "the markers find nothing in the rules");
        assert!(
            found.is_empty(),
            "decided outside index-negotiation (ask the rules instead): {found:#?}"
        );
    }

    #[test]
    fn the_decision_markers_find_what_they_name() {
        for decides in [
            "let round = index_negotiation::current_round(&state.turns).len();",
            "if turn.action == NegotiationAction::Decline || in_round >= NEGOTIATION_MAX_TURNS {",
            "last.is_some_and(|turn| turn.action != NegotiationAction::Decline)",
            "let in_round = turns % NEGOTIATION_MAX_TURNS;",
            "remaining_turns: NEGOTIATION_MAX_TURNS.saturating_sub(round.len()),",
            "let left = count.saturating_sub(NEGOTIATION_MAX_TURNS);",
        ] {
            assert!(!decision_markers(decides).is_empty(), "{decides}");
        }
        for names in [
            "use index_negotiation::{NEGOTIATION_MAX_TURNS, NegotiationAction};",
            "description = format!(\"A round has at most {NEGOTIATION_MAX_TURNS} turns.\"),",
            "for_people(\"[`NEGOTIATION_MAX_TURNS`].\"),",
            "pub const NEGOTIATION_MAX_TURNS: usize = max_turns!();",
            "match action { NegotiationAction::Decline => \"declined\", _ => \"\" }",
        ] {
            assert!(decision_markers(names).is_empty(), "{names}");
        }
    }

    /// The modules a folder holds: its `.rs` files and its folders, the
    /// file that maps them (`lib.rs`, `main.rs`, `mod.rs`) aside.
    fn modules_in(dir: &Path) -> std::collections::BTreeSet<String> {
        fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let is_dir = entry.path().is_dir();
                let module = name.strip_suffix(".rs").map_or(name.clone(), str::to_owned);
                let counted = (is_dir || name.ends_with(".rs"))
                    && !matches!(module.as_str(), "lib" | "main" | "mod");
                counted.then_some(module)
            })
            .collect()
    }

    /// The modules a file's `//!` docs map: the first column of its
    /// `| module | holds |` table.
    fn mapped_in(text: &str) -> Option<std::collections::BTreeSet<String>> {
        let docs: Vec<&str> = text
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .map(|line| line.trim_start_matches("//!").trim())
            .collect();
        docs.iter()
            .any(|line| line.starts_with("| module |"))
            .then(|| {
                docs.iter()
                    .filter_map(|line| line.strip_prefix("| `"))
                    .filter_map(|row| row.split('`').next())
                    .map(str::to_owned)
                    .collect()
            })
    }

    /// Each crate's root maps its modules in its own `//!` docs, and each
    /// module that is a folder maps its files in its `mod.rs` (or the
    /// file beside the folder): exactly the modules there, so a map cannot
    /// name a module that is gone or miss a new one. The map lives beside
    /// the code it describes, where rustdoc shows it.
    #[test]
    fn every_module_map_lists_exactly_its_modules() {
        let root = crate::workspace_root();
        let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .filter(|dir| dir.join("Cargo.toml").is_file())
            .collect();
        crates.push(root.join("xtask"));
        let mut wrong = Vec::new();
        let mut check = |mapper: PathBuf, dir: PathBuf| {
            let text = fs::read_to_string(&mapper).unwrap_or_default();
            let held = modules_in(&dir);
            match mapped_in(&text) {
                Some(mapped) if mapped == held => {}
                None if held.is_empty() => {}
                mapped => wrong.push(format!(
                    "{}: maps {mapped:?}, {} holds {held:?}",
                    mapper.display(),
                    dir.display()
                )),
            }
        };
        for krate in crates {
            let src = krate.join("src");
            let lib = src.join("lib.rs");
            check(
                if lib.is_file() {
                    lib
                } else {
                    src.join("main.rs")
                },
                src.clone(),
            );
            let mut folders = vec![src];
            while let Some(folder) = folders.pop() {
                for entry in fs::read_dir(&folder).unwrap().flatten() {
                    let path = entry.path();
                    if !path.is_dir() {
                        continue;
                    }
                    let beside = path.with_extension("rs");
                    let mapper = if beside.is_file() {
                        beside
                    } else {
                        path.join("mod.rs")
                    };
                    if mapper.is_file() {
                        check(mapper, path.clone());
                    }
                    folders.push(path);
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "module maps out of step:\n{}",
            wrong.join("\n")
        );
    }

    /// docs/ARCHITECTURE.md has a section for every crate, named by its
    /// folder.
    #[test]
    fn the_architecture_has_a_section_for_every_crate() {
        let root = crate::workspace_root();
        let doc = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
        let mapped: std::collections::BTreeSet<&str> = doc
            .split("\n### ")
            .skip(1)
            .filter_map(|section| section.lines().next()?.split('`').nth(1))
            .collect();
        let mut crates: Vec<String> = fs::read_dir(root.join("crates"))
            .unwrap()
            .flatten()
            .filter(|entry| entry.path().join("Cargo.toml").is_file())
            .map(|entry| format!("crates/{}", entry.file_name().to_string_lossy()))
            .collect();
        crates.push("xtask".to_owned());
        let unmapped: Vec<_> = crates
            .iter()
            .filter(|dir| !mapped.contains(dir.as_str()))
            .collect();
        assert!(
            unmapped.is_empty(),
            "crates with no section in docs/ARCHITECTURE.md: {unmapped:?}"
        );
    }
}
