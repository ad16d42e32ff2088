//! The canonical question message, for tests on both sides of the wire.
//!
//! [`QUESTION_MESSAGE_FIXTURE`] is typed out by hand rather than produced by
//! the serializer: if the serializer ever drifted, the test comparing the two
//! breaks, instead of the drift quietly becoming the new format. The same bytes are published as
//! `fixtures/question-block/canonical.message.txt` for clients in other
//! languages. Enabled by the `fixture` feature, so test data stays out of
//! default builds.

use crate::{QuestionBlock, QuestionBlockQuestion};

/// The canonical message's prose: three lines, no trailing whitespace.
pub const QUESTION_PROSE_FIXTURE: &str = "I have two introductions waiting on you for your search for a climate-data partner.\n\
Each one stopped at a point only you can settle, so a short answer here lets me\n\
reopen both conversations — no rush.";

/// The canonical block: two questions, the first also unblocking one more
/// negotiation.
pub fn question_block_fixture() -> QuestionBlock {
    QuestionBlock::new(vec![
        QuestionBlockQuestion::new(
            "Both teams asked how you would split ownership of the shared dataset: what arrangement would you accept?",
            "3c9a7e52-1f4b-4d8e-a6c2-9b0f3e7d5a14",
        )
        .also_unblocking(["8e2d4b6f-0a1c-4e3b-9d5f-7c6a2b1e0f93"]),
        QuestionBlockQuestion::new(
            "The Lisbon research group wants to know whether you could join their quarterly review in person.",
            "c5b7d9e1-2a4c-4f6e-8b0d-1e3f5a7c9b20",
        ),
    ])
}

/// The canonical block as JSON, exactly as it appears inside the message.
pub const QUESTION_BLOCK_JSON_FIXTURE: &str = r#"{
  "version": 1,
  "questions": [
    {
      "prompt": "Both teams asked how you would split ownership of the shared dataset: what arrangement would you accept?",
      "opportunityId": "3c9a7e52-1f4b-4d8e-a6c2-9b0f3e7d5a14",
      "alsoUnblocks": [
        "8e2d4b6f-0a1c-4e3b-9d5f-7c6a2b1e0f93"
      ]
    },
    {
      "prompt": "The Lisbon research group wants to know whether you could join their quarterly review in person.",
      "opportunityId": "c5b7d9e1-2a4c-4f6e-8b0d-1e3f5a7c9b20"
    }
  ]
}"#;

/// The canonical message: the prose, a blank line, and the fenced block.
pub const QUESTION_MESSAGE_FIXTURE: &str = r#"I have two introductions waiting on you for your search for a climate-data partner.
Each one stopped at a point only you can settle, so a short answer here lets me
reopen both conversations — no rush.

```index-questions
{
  "version": 1,
  "questions": [
    {
      "prompt": "Both teams asked how you would split ownership of the shared dataset: what arrangement would you accept?",
      "opportunityId": "3c9a7e52-1f4b-4d8e-a6c2-9b0f3e7d5a14",
      "alsoUnblocks": [
        "8e2d4b6f-0a1c-4e3b-9d5f-7c6a2b1e0f93"
      ]
    },
    {
      "prompt": "The Lisbon research group wants to know whether you could join their quarterly review in person.",
      "opportunityId": "c5b7d9e1-2a4c-4f6e-8b0d-1e3f5a7c9b20"
    }
  ]
}
```"#;
