//! The contract's constants: the fence marker, the one version, and the
//! limits every rule checks. A leaf, so every module reads them from here
//! rather than from the crate root.

/// The info string after the opening backticks that marks a fence as a question block.
pub const QUESTION_BLOCK_MARKER: &str = "index-questions";

/// The only block version this crate reads or writes. Parsers fail closed on
/// any other version, so a future shape change cannot be half-understood.
pub const QUESTION_BLOCK_VERSION: u8 = 1;

/// The most questions one block may carry.
pub const MAX_QUESTIONS: usize = 20;

/// The most further negotiations one question may also unpark.
pub const MAX_ALSO_UNBLOCKS: usize = 8;

/// The longest question prompt, in UTF-16 code units (JavaScript's
/// `String.length`, which is how the reference counts).
pub const MAX_PROMPT_LENGTH: usize = 2000;

/// Every key a block's JSON may hold, in the order the contract writes
/// them (and the reference's schema returns them): the block's two, then a
/// question's three. A host that parses a payload itself holds the block
/// exactly when its objects' keys come in this order.
pub const QUESTION_BLOCK_KEYS: [&str; 5] = [
    "version",
    "questions",
    "prompt",
    "opportunityId",
    "alsoUnblocks",
];
