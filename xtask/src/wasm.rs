//! `cargo xtask wasm`: the question block contract as an npm-style package
//! in `target/wasm-pkg/`, built with Debian's WebAssembly toolchain.
//!
//! rustup cannot fetch targets here, so the build uses Debian's `rustc`
//! (from `rustc-web`, with its `rust-src` for `-Zbuild-std`) and
//! `wasm-ld-19`, then `wasm-bindgen` at exactly the version of the
//! `wasm-bindgen` crate in `Cargo.lock`. The package's `index.js` (from
//! `crates/question-block-wasm/js/index.js`, minified) instantiates the
//! module itself, in Node or a browser, and calls its exports directly:
//! wasm-bindgen's generated JavaScript is only read, to check that the
//! module's interface is the one `index.js` calls. `fixture.js` holds the
//! canonical fixture, written from the crate's literals.

use std::path::{Path, PathBuf};
use std::process::Command;

use index_question_block::fixture::{
    QUESTION_BLOCK_JSON_FIXTURE, QUESTION_MESSAGE_FIXTURE, QUESTION_PROSE_FIXTURE,
};
use index_question_block::{QUESTION_BLOCK_KEYS, QUESTION_BLOCK_MARKER, QUESTION_BLOCK_VERSION};

const CRATE: &str = "index-question-block-wasm";
const DEBIAN_RUSTC: &str = "/usr/bin/rustc";
const DEBIAN_RUST_SRC: &str = "/usr/lib/rustlib/src/rust/library";
const LINKER: &str = "wasm-ld-19";

/// The tools the build needs, found.
pub(crate) struct Toolchain {
    wasm_bindgen: PathBuf,
    wasm_opt: PathBuf,
    esbuild: PathBuf,
}

/// The npm packages the build runs, installed into [`NPM_TOOLS`]: binaryen
/// for `wasm-opt`, which shrinks the module (Debian's is older than the SIMD
/// and reference-type proposals the module uses), and esbuild, which bundles
/// and minifies the package's JavaScript into one file.
const NPM_PACKAGES: [&str; 2] = ["binaryen@132.0.0", "esbuild@0.25.0"];
const NPM_TOOLS: &str = "target/tools/npm";

/// The gzipped size the package's module and JavaScript may reach, in bytes:
/// `cargo xtask check` and the package's test fail past it.
const BUDGET_FILE: &str = "crates/question-block-wasm/size-budget";

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// The `wasm-bindgen` version `Cargo.lock` pins.
fn locked_wasm_bindgen() -> Result<String, String> {
    let lock = std::fs::read_to_string(crate::workspace_root().join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    lock.split("[[package]]")
        .find(|p| p.contains("\nname = \"wasm-bindgen\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_owned())
        .ok_or_else(|| "Cargo.lock has no wasm-bindgen".to_owned())
}

/// The toolchain, or what is missing and how to get it.
pub(crate) fn toolchain() -> Result<Toolchain, String> {
    let version = locked_wasm_bindgen()?;
    let mut missing = Vec::new();
    if !Path::new(DEBIAN_RUSTC).is_file() || !Path::new(DEBIAN_RUST_SRC).is_dir() {
        missing.push(
            "Debian's rustc-web and rust-web-src (apt-get install rustc-web rust-web-src)"
                .to_owned(),
        );
    }
    if on_path(LINKER).is_none() {
        missing.push("wasm-ld-19 (apt-get install lld-19)".to_owned());
    }
    let local = crate::workspace_root().join("target/tools/bin/wasm-bindgen");
    let wasm_bindgen = if local.is_file() {
        Some(local)
    } else {
        on_path("wasm-bindgen")
    };
    let found_version = wasm_bindgen.as_ref().and_then(|tool| {
        let output = Command::new(tool).arg("--version").output().ok()?;
        Some(
            String::from_utf8_lossy(&output.stdout)
                .trim()
                .rsplit(' ')
                .next()?
                .to_owned(),
        )
    });
    if found_version.as_deref() != Some(version.as_str()) {
        missing.push(format!(
            "wasm-bindgen {version} (cargo install wasm-bindgen-cli --version ={version} --root target/tools); found {}",
            found_version.as_deref().unwrap_or("none")
        ));
    }
    let npm_bin = crate::workspace_root()
        .join(NPM_TOOLS)
        .join("node_modules/.bin");
    let (wasm_opt, esbuild) = (npm_bin.join("wasm-opt"), npm_bin.join("esbuild"));
    if !wasm_opt.is_file() || !esbuild.is_file() {
        missing.push(format!(
            "wasm-opt and esbuild (npm install --prefix {NPM_TOOLS} {})",
            NPM_PACKAGES.join(" ")
        ));
    }
    match (missing.is_empty(), wasm_bindgen) {
        (true, Some(wasm_bindgen)) => Ok(Toolchain {
            wasm_bindgen,
            wasm_opt,
            esbuild,
        }),
        _ => Err(format!(
            "the WebAssembly toolchain is incomplete: missing {}",
            missing.join("; ")
        )),
    }
}

fn run_checked(command: &mut Command, what: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Builds the package; returns its directory.
pub(crate) fn build(tools: &Toolchain) -> Result<PathBuf, String> {
    let root = crate::workspace_root();
    let build_dir = root.join("target/wasm-build");
    let pkg = root.join("target/wasm-pkg");
    // A separate target directory: Debian's rustc must not invalidate the
    // host build.
    run_checked(
        crate::cargo(&[
            "build",
            "--quiet",
            "--release",
            "--package",
            CRATE,
            "--lib",
            "--target",
            "wasm32-unknown-unknown",
            "-Z",
            "build-std=std,panic_abort",
            "-Z",
            "build-std-features=optimize_for_size",
            "--config",
            "profile.release.opt-level=\"z\"",
            "--config",
            "profile.release.lto=true",
            "--config",
            "profile.release.codegen-units=1",
        ])
        .arg("--target-dir")
        .arg(&build_dir)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTC", DEBIAN_RUSTC)
        // Panics abort without formatting a message or recording where: a
        // browser bundle has no use for the machinery, and the contract
        // never panics on input.
        // SIMD128 (in every browser since 2023, and in Node) makes the fence
        // search both faster and smaller than its scalar fallback. Without
        // reference types, wasm-bindgen keeps no table of JavaScript values
        // (the module holds none), so the module needs no start-up call.
        // Inlining less than opt-level "z" does by default saves 200 bytes
        // gzipped and was measured no slower.
        .env(
            "RUSTFLAGS",
            "-Zunstable-options -Cpanic=immediate-abort \
             -Ctarget-feature=+simd128,-reference-types \
             -Zlocation-detail=none -Cllvm-args=-inline-threshold=50",
        )
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER", LINKER),
        "the wasm32 build",
    )?;
    let wasm = build_dir
        .join("wasm32-unknown-unknown/release")
        .join(format!("{}.wasm", CRATE.replace('-', "_")));
    let _ = std::fs::remove_dir_all(&pkg);
    run_checked(
        Command::new(&tools.wasm_bindgen)
            .args([
                "--target",
                "bundler",
                "--remove-name-section",
                "--remove-producers-section",
                "--out-name",
                "index_question_block",
                "--out-dir",
            ])
            .arg(&pkg)
            .arg(&wasm),
        "wasm-bindgen",
    )?;
    let module = pkg.join("index_question_block_bg.wasm");
    run_checked(
        Command::new(&tools.wasm_opt)
            .args([
                // Optimize until nothing changes further (-O3 leaves this
                // module smaller gzipped than -Oz does, and faster), and
                // drop the target-features section (only tools read it,
                // and the features are named here).
                "-O3",
                "--converge",
                "--strip-target-features",
                "--enable-simd",
                "--enable-bulk-memory",
                "--enable-nontrapping-float-to-int",
                "--enable-sign-ext",
                "--enable-multivalue",
                "--enable-mutable-globals",
            ])
            .arg(&module)
            .arg("-o")
            .arg(&module),
        "wasm-opt",
    )?;
    let import = checked_abi(&pkg)?;
    for (name, contents) in package_files(&import)? {
        std::fs::write(pkg.join(name), contents).map_err(|e| format!("{name}: {e}"))?;
    }
    let minified = pkg.join("index.min.js");
    run_checked(
        Command::new(&tools.esbuild)
            .arg(pkg.join("index.js"))
            .args(["--minify", "--format=esm", "--log-level=warning"])
            .arg(format!("--outfile={}", minified.display())),
        "esbuild",
    )?;
    std::fs::rename(&minified, pkg.join("index.js")).map_err(|e| format!("index.js: {e}"))?;
    for generated in [
        "index_question_block.js",
        "index_question_block_bg.js",
        "index_question_block.d.ts",
        "index_question_block_bg.wasm.d.ts",
    ] {
        std::fs::remove_file(pkg.join(generated)).map_err(|e| format!("{generated}: {e}"))?;
    }
    let _ = std::fs::remove_dir_all(pkg.join("snippets"));
    Ok(pkg)
}

/// The module's exports as `index.js` calls them, in the form wasm-bindgen
/// declares them: each takes its texts as (pointer, length) of UTF-8 that
/// the module then owns and frees, and returns its result's (pointer,
/// length), which the caller frees.
const MODULE_EXPORTS: &str = "export const memory: WebAssembly.Memory;
export const questionMessage: (a: number, b: number, c: number) => [number, number];
export const __wbindgen_malloc: (a: number, b: number) => number;
export const __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
export const __wbindgen_free: (a: number, b: number, c: number) => void;
";

/// The one function the module imports (named by wasm-bindgen, with a hash):
/// `canonicalJson`, called with where to write its result's (pointer,
/// length) and the (pointer, length) of the text it reads.
const IMPORT_PREFIX: &str = "export function __wbg_canonicalJson_";

/// Checks that the module calls and is called exactly as `index.js`
/// expects, and returns the name of the function it imports. `index.js`
/// talks to the module directly rather than through wasm-bindgen's generated
/// JavaScript (half the package's script, gzipped), so a wasm-bindgen that
/// changes the module's interface fails here, not in a browser.
fn checked_abi(pkg: &Path) -> Result<String, String> {
    let read =
        |name: &str| std::fs::read_to_string(pkg.join(name)).map_err(|e| format!("{name}: {e}"));
    let exports = read("index_question_block_bg.wasm.d.ts")?;
    let bindings = read("index_question_block_bg.js")?;
    abi_import(&exports, &bindings)
}

/// [`checked_abi`] on the declared exports and the generated bindings.
fn abi_import(exports: &str, bindings: &str) -> Result<String, String> {
    let declared: String = exports
        .lines()
        .filter(|line| line.starts_with("export "))
        .flat_map(|line| [line, "\n"])
        .collect();
    if declared != MODULE_EXPORTS {
        return Err(format!(
            "the module's exports are not the ones index.js calls (has wasm-bindgen changed?):\n{declared}"
        ));
    }
    let imports: Vec<&str> = bindings
        .lines()
        .filter(|line| {
            line.starts_with("export function __wbg_")
                || line.starts_with("export function __wbindgen_")
        })
        .filter(|line| !line.starts_with("export function __wbg_set_wasm("))
        .collect();
    match imports[..] {
        [line] => line
            .strip_prefix(IMPORT_PREFIX)
            .and_then(|rest| rest.strip_suffix("(arg0, arg1, arg2) {"))
            .filter(|hash| hash.bytes().all(|b| b.is_ascii_alphanumeric()))
            .map(|hash| format!("__wbg_canonicalJson_{hash}"))
            .ok_or_else(|| format!("the module imports {line:?}, not what index.js provides")),
        _ => Err(format!(
            "the module imports {imports:?}; index.js provides only canonicalJson"
        )),
    }
}

fn js_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The contract's keys in its order, as a JavaScript array.
fn js_keys() -> String {
    let keys: Vec<String> = QUESTION_BLOCK_KEYS
        .iter()
        .map(|key| js_string(key))
        .collect();
    format!("[{}]", keys.join(", "))
}

/// The package's script, before `$CANONICAL_JSON` (the name of the function
/// the module imports), `$MARKER`, `$VERSION` and `$KEYS` are filled in.
const INDEX_JS: &str = include_str!("../../crates/question-block-wasm/js/index.js");

/// The package's files around the module; `import` names the function the
/// module imports.
fn package_files(import: &str) -> Result<Vec<(&'static str, String)>, String> {
    let version = crate::workspace_root().join("Cargo.toml");
    let manifest = std::fs::read_to_string(version).map_err(|e| e.to_string())?;
    let version = manifest
        .split("[workspace.package]")
        .nth(1)
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_owned())
        .unwrap_or_default();
    let mut index = INDEX_JS.to_owned();
    for (placeholder, value) in [
        ("$CANONICAL_JSON", import.to_owned()),
        ("$MARKER", js_string(QUESTION_BLOCK_MARKER)),
        ("$VERSION", QUESTION_BLOCK_VERSION.to_string()),
        ("$KEYS", js_keys()),
    ] {
        if index.matches(placeholder).count() != 1 {
            return Err(format!("index.js names {placeholder} other than once"));
        }
        index = index.replace(placeholder, &value);
    }
    let types = "export const QUESTION_BLOCK_MARKER: \"index-questions\";\n\
        export const QUESTION_BLOCK_VERSION: 1;\n\
        export interface QuestionBlockQuestion {\n  prompt: string;\n  opportunityId: string;\n  alsoUnblocks?: string[];\n}\n\
        export interface QuestionBlock {\n  version: 1;\n  questions: QuestionBlockQuestion[];\n}\n\
        export interface ParsedQuestionMessage {\n  prose: string;\n  block: QuestionBlock;\n}\n\
        export interface Problem {\n  path: string;\n  rule: string;\n  message: string;\n}\n\
        export type Explanation =\n  | ({ ok: true } & ParsedQuestionMessage)\n  | { ok: false; rule: string; reason: string; problems?: Problem[] };\n\
        /** The prose and block of a question message, or null when the body is anything else. */\n\
        export function parseQuestionMessage(body: string): ParsedQuestionMessage | null;\n\
        /** The same decision as parseQuestionMessage, saying why a body is not a question message. */\n\
        export function explainQuestionMessage(body: string): Explanation;\n\
        /** The message for prose and block; throws an Error listing every problem of an invalid block. */\n\
        export function serializeQuestionMessage(prose: string, block: QuestionBlock): string;\n\
        /** The block, normalised, or every problem with its path. */\n\
        export function validateQuestionBlock(value: unknown): { ok: true; block: QuestionBlock } | { ok: false; problems: Problem[] };\n";
    let fixture = format!(
        "// The canonical question message, for tests.\n\
         export const questionProseFixture = {};\n\
         export const questionBlockFixture = {QUESTION_BLOCK_JSON_FIXTURE};\n\
         export const questionMessageFixture = {};\n",
        js_string(QUESTION_PROSE_FIXTURE),
        js_string(QUESTION_MESSAGE_FIXTURE)
    );
    let fixture_types = "import type { QuestionBlock } from \"./index.js\";\n\
        export const questionProseFixture: string;\n\
        export const questionBlockFixture: QuestionBlock;\n\
        export const questionMessageFixture: string;\n";
    let package = serde_json::json!({
        "name": "index-question-block",
        "version": version,
        "description": "The Index question block contract, compiled from Rust to WebAssembly.",
        "license": "MIT OR Apache-2.0",
        "type": "module",
        "exports": {
            ".": {"types": "./index.d.ts", "import": "./index.js"},
            "./fixture": {"types": "./fixture.d.ts", "import": "./fixture.js"}
        },
        "files": ["index.js", "index.d.ts", "fixture.js", "fixture.d.ts", "index_question_block_bg.wasm"]
    });
    Ok(vec![
        ("index.js", index),
        ("index.d.ts", types.to_owned()),
        ("fixture.js", fixture),
        ("fixture.d.ts", fixture_types.to_owned()),
        (
            "package.json",
            serde_json::to_string_pretty(&package).map_err(|e| e.to_string())? + "\n",
        ),
    ])
}

/// What a browser downloads to use the package, in bytes: the module and
/// `index.js` (the fixture aside), raw and each gzipped.
pub(crate) struct Sizes {
    raw: u64,
    gzipped: u64,
}

pub(crate) fn gzipped_len(path: &Path) -> Result<u64, String> {
    let output = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()
        .map_err(|e| format!("gzip: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "gzip {} exited with {}: {}",
            path.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout.len() as u64)
}

/// The files a browser loads from the package.
pub(crate) fn loaded_files(pkg: &Path) -> [PathBuf; 2] {
    [
        pkg.join("index_question_block_bg.wasm"),
        pkg.join("index.js"),
    ]
}

pub(crate) fn sizes(pkg: &Path) -> Result<Sizes, String> {
    let mut sizes = Sizes { raw: 0, gzipped: 0 };
    for file in loaded_files(pkg) {
        sizes.raw += std::fs::metadata(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        sizes.gzipped += gzipped_len(&file)?;
    }
    Ok(sizes)
}

/// The budget recorded in the repository.
fn budget() -> Result<u64, String> {
    budget_in(BUDGET_FILE)
}

/// The byte count a budget file (relative to the workspace root) records:
/// its first line that is not a `#` comment.
pub(crate) fn budget_in(file: &str) -> Result<u64, String> {
    let path = crate::workspace_root().join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
    text.lines()
        .find(|line| !line.starts_with('#') && !line.trim().is_empty())
        .and_then(|line| line.trim().parse().ok())
        .ok_or_else(|| format!("{file} holds no byte count"))
}

/// Fails when the package has grown past its budget.
pub(crate) fn check_budget(sizes: &Sizes) -> Result<(), String> {
    let budget = budget()?;
    if sizes.gzipped > budget {
        Err(format!(
            "the browser package is {} bytes gzipped, past its budget of {budget} ({BUDGET_FILE})",
            sizes.gzipped
        ))
    } else {
        Ok(())
    }
}

/// Builds the package and checks its size, for `cargo xtask check`: where
/// it was built.
pub(crate) fn check() -> Result<PathBuf, String> {
    let pkg = build(&toolchain()?)?;
    let sizes = sizes(&pkg)?;
    println!("{} bytes gzipped (budget {})", sizes.gzipped, budget()?);
    check_budget(&sizes)?;
    Ok(pkg)
}

/// Builds the package and, with `run_tests`, runs its JavaScript tests.
pub(crate) fn run(run_tests: bool) -> Result<(), String> {
    let tools = toolchain()?;
    let pkg = build(&tools)?;
    let Sizes { raw, gzipped } = sizes(&pkg)?;
    let module = pkg.join("index_question_block_bg.wasm");
    let module_raw = std::fs::metadata(&module).map_err(|e| e.to_string())?.len();
    println!(
        "{}: {raw} bytes, {gzipped} gzipped (the module {module_raw} bytes, {} gzipped; the rest is its JavaScript)",
        pkg.display(),
        gzipped_len(&module)?
    );
    check_budget(&Sizes { raw, gzipped })?;
    if run_tests { test(&pkg) } else { Ok(()) }
}

/// Runs the package's JavaScript tests (Node, and headless Chromium).
pub(crate) fn test(pkg: &Path) -> Result<(), String> {
    let root = crate::workspace_root();
    let js = root.join("crates/question-block-wasm/js");
    run_checked(
        Command::new("node")
            .arg("--test")
            .arg(js.join("node.test.mjs"))
            .arg(js.join("browser.test.mjs"))
            .env("INDEX_WASM_PKG", pkg)
            .env("INDEX_FIXTURES", root.join("fixtures/question-block")),
        "the package's JavaScript tests",
    )
}

/// `cargo xtask wasm --bench`: builds the package and times it against the
/// reference's JavaScript, named by `INDEX_REFERENCE_QUESTION_BLOCK` (its
/// `question-block.schema.js`, with zod installed where it resolves it), in
/// Node and in headless Chromium; see `js/bench.mjs`.
pub(crate) fn bench() -> Result<(), String> {
    let pkg = build(&toolchain()?)?;
    let js = crate::workspace_root().join("crates/question-block-wasm/js");
    run_checked(
        Command::new("node")
            .arg(js.join("bench.mjs"))
            .env("INDEX_WASM_PKG", &pkg),
        "the package's benchmark",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tools, or a failure naming every one that is missing.
    fn tools() -> Toolchain {
        let mut reasons = Vec::new();
        let tools = toolchain();
        if let Err(why) = &tools {
            reasons.push(why.clone());
        }
        if on_path("node").is_none() {
            reasons.push("node".to_owned());
        }
        if !Path::new("/usr/bin/chromium").is_file() {
            reasons.push("chromium (apt-get install chromium)".to_owned());
        }
        match tools {
            Ok(tools) if reasons.is_empty() => tools,
            _ => panic!("missing: {}", reasons.join("; ")),
        }
    }

    #[test]
    fn the_glue_is_checked_against_the_modules_interface() {
        let exports = format!("/* tslint:disable */\n{MODULE_EXPORTS}");
        let bindings = "export function parseQuestionMessage(body) {\n}\n\
            export function __wbg_canonicalJson_303d11805eaa6120(arg0, arg1, arg2) {\n}\n\
            export function __wbg_set_wasm(val) {\n}\n";
        assert_eq!(
            abi_import(&exports, bindings).unwrap(),
            "__wbg_canonicalJson_303d11805eaa6120"
        );
        // Another import, another signature, or other exports: refused.
        let more = format!("{bindings}export function __wbindgen_init_externref_table() {{\n}}\n");
        assert!(abi_import(&exports, &more).is_err());
        let other = bindings.replace("(arg0, arg1, arg2)", "(arg0, arg1)");
        assert!(abi_import(&exports, &other).is_err());
        let changed = exports.replace(
            "(a: number, b: number, c: number) => void",
            "(a: number) => void",
        );
        assert!(abi_import(&changed, bindings).is_err());
    }

    #[test]
    fn the_script_names_each_placeholder_once() {
        let files = package_files("__wbg_canonicalJson_0123").unwrap();
        let (_, index) = files.iter().find(|(name, _)| *name == "index.js").unwrap();
        assert!(index.contains("__wbg_canonicalJson_0123(out, at, length) {"));
        assert!(index.contains("const MARKER = \"index-questions\";"));
        assert!(index.contains("QUESTION_BLOCK_VERSION = 1;"));
        assert!(index.contains(
            "const KEYS = [\"version\", \"questions\", \"prompt\", \"opportunityId\", \"alsoUnblocks\"];"
        ));
        for placeholder in ["$CANONICAL_JSON", "$MARKER", "$VERSION", "$KEYS"] {
            assert!(!index.contains(placeholder), "{placeholder}");
        }
    }

    #[test]
    #[ignore = "needs rustc-web, rust-web-src, lld-19, node, chromium, wasm-bindgen-cli and binaryen (see .ci/run); cargo test -- --ignored"]
    fn the_wasm_package_passes_its_node_and_browser_tests() {
        let tools = tools();
        let pkg = build(&tools).unwrap();
        let sizes = sizes(&pkg).unwrap();
        eprintln!(
            "question block package: {} bytes, {} gzipped",
            sizes.raw, sizes.gzipped
        );
        check_budget(&sizes).unwrap();
        test(&pkg).unwrap();
    }
}
