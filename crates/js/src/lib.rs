//! The JavaScript semantics that the Index protocol contracts inherit from
//! their reference implementation, in one place.
//!
//! The reference is TypeScript validated with zod, so its limits count
//! UTF-16 code units, its trims remove JavaScript's whitespace, its numbers
//! are doubles written as `String(n)` writes them, its sets find values as
//! `Set.has` does, its strings are written
//! as `JSON.stringify` writes them, and its problems carry zod's dotted
//! paths and stop later checks where zod's do. Rust's own versions differ in small ways (`str::trim` keeps
//! U+FEFF and removes U+0085, `str::len` counts bytes, `{}` writes `1e21` as
//! `1000000000000000000000`), and a contract that used them would drift
//! from the reference on exactly the inputs nobody tests. Every contract
//! crate of the workspace reads these semantics from here, so there is one
//! definition of each to test against the reference.
//!
//! The crate is browser-safe: no I/O, no threads, no platform code.
//!
//! ```
//! assert_eq!(index_js::utf16_len("🙂"), 2);
//! assert_eq!(index_js::trim("\u{feff} hi \u{2028}"), "hi");
//! assert_eq!(index_js::number_to_string(1e21), "1e+21");
//! assert_eq!(index_js::number_from_str(" 0x10 "), 16.0);
//! assert_eq!(index_js::json_string("a\"b"), r#""a\"b""#);
//! ```
//!
//! | module | holds |
//! |---|---|
//! | `string` | UTF-16 lengths, `trim`, whitespace and line terminators, zod 3's UUID check |
//! | `number` | `Number(string)`, `String(number)` (through `ryu-js`), safe integers |
//! | `json` | `JSON.stringify` for strings |
//! | `json_type` | `JsonType`, the six types as problem reports name them |
//! | `equality` | `Set.has`'s equality (`same_value_zero`) |
//! | `path` | zod's issue paths (`IssuePath`) and `At`, the stack-built position a reader carries |
//! | `problems` | `Problems<P>`, the one list-of-problems shape: never empty, an error itself |
//! | `zod` | which problems stop later checks, for zod 3 and zod 4 |
//! | `wire` | `wire_enum!`: a closed string set, each wire name written once |

mod equality;
mod json;
mod json_type;
mod number;
mod path;
mod problems;
mod string;
mod wire;
mod zod;

pub use equality::same_value_zero;
pub use json::{json_string, push_json_string};
pub use json_type::JsonType;
pub use number::{
    MAX_SAFE_INTEGER, is_safe_integer, number_from_str, number_to_string, push_decimal,
    serialize_js_number,
};
pub use path::{At, IssuePath, PathSegment};
pub use problems::Problems;
pub use string::{
    is_blank, is_hyphenated_uuid, is_js_line_terminator, is_js_whitespace, trim, trim_end,
    utf16_len,
};
pub use wire::WireEnum;
#[doc(hidden)]
pub use wire::deserialize_wire_name;
pub use zod::{ZodIssueKind, ZodMajor};

#[doc(hidden)]
pub use serde as __serde;

#[cfg(feature = "schemars")]
#[doc(hidden)]
pub use schemars as __schemars;
