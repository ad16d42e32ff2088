//! Writing a question message, and reading one back.

use crate::block::{ParsedQuestionMessage, QuestionBlock};
use crate::error::{InvalidQuestionBlock, NotAQuestionMessage};
use crate::fence::{
    OpenFence, first_close_fence, last_open_fence, longest_backtick_run, open_fence_on_first_line,
    terminator_len,
};
use crate::json::{pretty_len_hint, replace_lone_surrogate_escapes, write_pretty_block};
use crate::limits::QUESTION_BLOCK_MARKER;
use crate::validate::{FromStrError, block_from_str, decide_block};
use crate::view::JsonView;
use crate::walk::decide_block_view;
use index_js as js;

/// Writes `block` after `prose` as a question message, byte for byte as the
/// reference does.
///
/// The message is the prose with trailing whitespace removed (JavaScript's
/// `trimEnd`), a blank line, then a fence of at least three backticks, one
/// longer than any backtick run in the payload so a prompt can never close it
/// early, the marker, the block as two-space-indented JSON, and the closing
/// fence. With no prose left after trimming, the message is the fenced block
/// alone.
///
/// # Errors
///
/// An invalid block is a producer's bug, never output: every problem is
/// returned in [`InvalidQuestionBlock`].
///
/// ```
/// use index_question_block::{serialize_question_message, QuestionBlock, QuestionBlockQuestion};
/// let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
///     "Is `remote` fine?",
///     "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4",
/// )]);
/// let message = serialize_question_message("  \n", &block)?;
/// assert!(message.starts_with("```index-questions\n{\n"));
/// assert!(message.ends_with("\n}\n```"));
/// # Ok::<(), index_question_block::InvalidQuestionBlock>(())
/// ```
pub fn serialize_question_message(
    prose: &str,
    block: &QuestionBlock,
) -> Result<String, InvalidQuestionBlock> {
    block.validate()?;
    Ok(write_message(prose, block))
}

/// [`serialize_question_message`] for a block given as parsed JSON, the way
/// the reference's `serializeQuestionMessage` takes it: the value is read as
/// [`QuestionBlock::from_json`] reads it, so every problem is reported as
/// the reference's schema reports it, and the block read is written without
/// being checked a second time.
///
/// ```
/// use index_question_block::serialize_question_message_from_json;
/// let block = serde_json::json!({"version": 1, "questions": [
///     {"prompt": "Is `remote` fine?", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4"}
/// ]});
/// let message = serialize_question_message_from_json("Hi.", &&block)?;
/// assert!(message.starts_with("Hi.\n\n```index-questions\n{\n"));
/// let wrong = serde_json::json!({"version": 2, "questions": []});
/// let invalid = serialize_question_message_from_json("Hi.", &&wrong).unwrap_err();
/// assert_eq!(invalid.issues().len(), 2);
/// # Ok::<(), index_question_block::InvalidQuestionBlock>(())
/// ```
///
/// # Errors
///
/// [`InvalidQuestionBlock`] with every problem of a value that is not a
/// valid block.
pub fn serialize_question_message_from_json<V: JsonView>(
    prose: &str,
    block: &V,
) -> Result<String, InvalidQuestionBlock> {
    let block = QuestionBlock::from_json(block)?;
    Ok(write_message(prose, &block))
}

/// The message for a block already known to be valid.
fn write_message(prose: &str, block: &QuestionBlock) -> String {
    // The JSON writer neither adds nor escapes backticks, so the payload's
    // longest run is the longest in the block's strings.
    let mut longest_run = 0;
    for q in &block.questions {
        let refs = q.also_unblocks.iter().flatten();
        for text in [&q.prompt, &q.opportunity_id].into_iter().chain(refs) {
            longest_run = longest_run.max(longest_backtick_run(text));
        }
    }
    let fence_length = longest_run.saturating_add(1).max(3);
    let prose = js::trim_end(prose);
    let mut message = String::with_capacity(
        prose.len() + pretty_len_hint(block) + 2 * fence_length + QUESTION_BLOCK_MARKER.len() + 4,
    );
    if !prose.is_empty() {
        message.push_str(prose);
        message.push_str("\n\n");
    }
    push_fence(&mut message, fence_length);
    message.push_str(QUESTION_BLOCK_MARKER);
    message.push('\n');
    write_pretty_block(&mut message, block);
    message.push('\n');
    push_fence(&mut message, fence_length);
    message
}

fn push_fence(out: &mut String, length: usize) {
    out.extend(std::iter::repeat_n('`', length));
}

/// Why [`serialize_question_message_checked`] would not hand a message on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum UnsendableQuestionMessage {
    /// The block is invalid.
    #[error(transparent)]
    Invalid(#[from] InvalidQuestionBlock),
    /// The bytes are what the reference writes, but no reader (the
    /// reference's or this crate's) would find this block in them: a
    /// string holds U+2028 or U+2029 (which `JSON.stringify` leaves raw and
    /// which end lines for the fence search) next to a fence or the marker.
    #[error("the message would not read back as its block{}", reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default())]
    DoesNotReadBack {
        /// The message as [`serialize_question_message`] writes it.
        message: String,
        /// Why a reader rejects it; `None` when it reads, but as another block.
        reason: Option<NotAQuestionMessage>,
    },
}

/// [`serialize_question_message`], then a check that the message reads back
/// as `prose` and `block`: the reference writes some blocks (a prompt with
/// U+2028 or U+2029 beside a fence marker) into bytes that no reader then
/// accepts, and sends them anyway. Use this before sending a message built
/// from text you do not control.
///
/// ```
/// use index_question_block::{serialize_question_message_checked, QuestionBlock, QuestionBlockQuestion, UnsendableQuestionMessage};
/// let id = "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4";
/// let fine = QuestionBlock::new(vec![QuestionBlockQuestion::new("Which city?", id)]);
/// assert!(serialize_question_message_checked("One question:", &fine).is_ok());
/// let forged = QuestionBlock::new(vec![QuestionBlockQuestion::new("\u{2028}```index-questions\u{2028}", id)]);
/// assert!(matches!(
///     serialize_question_message_checked("One question:", &forged),
///     Err(UnsendableQuestionMessage::DoesNotReadBack { .. })
/// ));
/// ```
///
/// # Errors
///
/// [`UnsendableQuestionMessage::Invalid`] for an invalid block, and
/// [`UnsendableQuestionMessage::DoesNotReadBack`] with the bytes and the
/// reader's reason for one that would not read back.
pub fn serialize_question_message_checked(
    prose: &str,
    block: &QuestionBlock,
) -> Result<String, UnsendableQuestionMessage> {
    let message = serialize_question_message(prose, block)?;
    match explain_question_message(&message) {
        Ok(parsed) if parsed.block == *block => Ok(message),
        Ok(_) => Err(UnsendableQuestionMessage::DoesNotReadBack {
            message,
            reason: None,
        }),
        Err(reason) => Err(UnsendableQuestionMessage::DoesNotReadBack {
            message,
            reason: Some(reason),
        }),
    }
}

/// Reads a question message: the prose and the block that ends it, or
/// `None` when `body` is anything else, in which case the caller shows the
/// whole body as plain text.
///
/// Returns exactly what the reference's parser returns for every body: the
/// last opening marker fence wins; the first later line of exactly as many
/// backticks closes it; only whitespace may follow; the payload must be JSON
/// and a valid block. This is [`explain_question_message`] without the reason.
///
/// ```
/// use index_question_block::parse_question_message;
/// let body = "Two things first.\n\n```index-questions\n{\"version\": 1, \"questions\": [\n  {\"prompt\": \"Budget?\", \"opportunityId\": \"9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4\"}\n]}\n```\n";
/// let parsed = parse_question_message(body).unwrap();
/// assert_eq!(parsed.prose, "Two things first.");
/// assert_eq!(parsed.block.questions[0].prompt, "Budget?");
/// assert!(parse_question_message("Just chatting about ```index-questions").is_none());
/// ```
pub fn parse_question_message(body: &str) -> Option<ParsedQuestionMessage> {
    let parts = split(body).ok()?;
    let block = decide_block(&replace_lone_surrogate_escapes(parts.payload))?;
    Some(parts.with_block(block))
}

/// [`parse_question_message`] on a body as UTF-16 code units, as a
/// JavaScript string holds it, lone surrogates and all.
///
/// Each lone surrogate is read as U+FFFD. Both are one UTF-16 unit, neither
/// is whitespace, a backtick or a line end, and JSON takes either inside a
/// string and neither outside one, so the decision is the reference's on
/// the same string; only a returned prompt differs, by that character.
///
/// ```
/// use index_question_block::parse_question_message_utf16;
/// let body = "```index-questions\n{\"version\":1,\"questions\":[{\"prompt\":\"Q?\",\"opportunityId\":\"9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4\"}]}\n```";
/// let mut units: Vec<u16> = body.encode_utf16().collect();
/// let at = units.iter().position(|u| *u == u16::from(b'?')).unwrap();
/// units[at] = 0xD800; // a lone high surrogate in place of the `?`
/// let parsed = parse_question_message_utf16(&units).unwrap();
/// assert_eq!(parsed.block.questions[0].prompt, "Q\u{FFFD}");
/// ```
pub fn parse_question_message_utf16(body: &[u16]) -> Option<ParsedQuestionMessage> {
    explain_question_message_utf16(body).ok()
}

/// [`explain_question_message`] on a body as UTF-16 code units; see
/// [`parse_question_message_utf16`].
///
/// # Errors
///
/// As [`explain_question_message`].
pub fn explain_question_message_utf16(
    body: &[u16],
) -> Result<ParsedQuestionMessage, NotAQuestionMessage> {
    explain_question_message(&String::from_utf16_lossy(body))
}

/// Makes the same decision as [`parse_question_message`], but says why a
/// body is not a question message.
///
/// # Errors
///
/// [`NotAQuestionMessage`] names the first rule the body breaks, in the order
/// the parser checks them: no marker fence, nothing after it, no closing
/// fence, text after the closing fence, invalid JSON (with its line and
/// column in the body), or a block that breaks the contract (every problem,
/// with its path).
///
/// ```
/// use index_question_block::{explain_question_message, NotAQuestionMessage};
/// let body = "```index-questions\n{}\n```";
/// match explain_question_message(body) {
///     Err(NotAQuestionMessage::InvalidBlock(err)) => assert_eq!(err.issues().len(), 2),
///     other => panic!("unexpected {other:?}"),
/// }
/// ```
pub fn explain_question_message(body: &str) -> Result<ParsedQuestionMessage, NotAQuestionMessage> {
    let parts = split(body).map_err(|refusal| refusal.explain(body))?;
    let block =
        block_from_str(&replace_lone_surrogate_escapes(parts.payload)).map_err(
            |err| match err {
                FromStrError::Invalid(invalid) => NotAQuestionMessage::InvalidBlock(invalid),
                FromStrError::Json(err) => {
                    let (line, column) = line_column(
                        body,
                        parts.payload_start + json_error_offset(parts.payload, &err),
                    );
                    NotAQuestionMessage::InvalidJson {
                        line,
                        column,
                        reason: json_error_reason(&err),
                    }
                }
            },
        )?;
    Ok(parts.with_block(block))
}

/// Why a payload is not JSON, as a host's own JSON reader reports it, for
/// [`explain_question_message_with`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonSyntaxError {
    /// Byte offset in the payload where the reader stopped (clamped to the
    /// payload, moved back to a character boundary).
    pub offset: usize,
    /// What the reader expected there.
    pub reason: String,
}

/// [`explain_question_message`] with the payload read by `read_json`, the
/// host's own JSON reader, instead of serde_json: a browser build passes
/// `JSON.parse`, which has the reference's semantics exactly, and needs no
/// JSON code of its own. `read_json` gets the payload as the body holds it
/// (a part of `body` itself, never a copy, so where it lies is known from
/// its address) and returns a value that the block is read from through
/// [`JsonView`].
///
/// ```
/// use index_question_block::{explain_question_message_with, JsonSyntaxError};
/// let body = "```index-questions\n{\"version\": 1, \"questions\": []}\n```";
/// let mut at = None;
/// let read = |payload: &str| {
///     at = Some(payload.as_ptr() as usize - body.as_ptr() as usize);
///     serde_json::from_str::<serde_json::Value>(payload)
///         .map_err(|err| JsonSyntaxError { offset: 0, reason: err.to_string() })
/// };
/// let why = explain_question_message_with(body, read).unwrap_err();
/// assert_eq!(why.rule(), "too-few-items");
/// assert_eq!(at, Some(19));
/// ```
///
/// # Errors
///
/// As [`explain_question_message`], with `read_json`'s reason for a payload
/// that is not JSON.
pub fn explain_question_message_with<T, R>(
    body: &str,
    read_json: R,
) -> Result<ParsedQuestionMessage, NotAQuestionMessage>
where
    for<'v> &'v T: JsonView,
    R: FnOnce(&str) -> Result<T, JsonSyntaxError>,
{
    explain_split(body, split(body), read_json)
}

/// [`explain_question_message_with`] once the fences are found.
fn explain_split<T, R>(
    body: &str,
    split: Result<Parts<'_>, Refusal>,
    read_json: R,
) -> Result<ParsedQuestionMessage, NotAQuestionMessage>
where
    for<'v> &'v T: JsonView,
    R: FnOnce(&str) -> Result<T, JsonSyntaxError>,
{
    let parts = split.map_err(|refusal| refusal.explain(body))?;
    let value = read_json(parts.payload).map_err(|err| {
        let mut offset = err.offset.min(parts.payload.len());
        while !parts.payload.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, column) = line_column(body, parts.payload_start + offset);
        NotAQuestionMessage::InvalidJson {
            line,
            column,
            reason: err.reason,
        }
    })?;
    Ok(parts.with_block(QuestionBlock::from_json(&&value)?))
}

/// [`parse_question_message`] with the payload read by `read_json`, which
/// returns `None` for a payload that is not JSON; see
/// [`explain_question_message_with`].
///
/// ```
/// use index_question_block::{parse_question_message_with, fixture::QUESTION_MESSAGE_FIXTURE};
/// let read = |payload: &str| serde_json::from_str::<serde_json::Value>(payload).ok();
/// assert!(parse_question_message_with(QUESTION_MESSAGE_FIXTURE, read).is_some());
/// ```
pub fn parse_question_message_with<T, R>(body: &str, read_json: R) -> Option<ParsedQuestionMessage>
where
    for<'v> &'v T: JsonView,
    R: FnOnce(&str) -> Option<T>,
{
    let parts = split(body).ok()?;
    let value = read_json(parts.payload)?;
    decide_block_view(&&value).map(|block| parts.with_block(block))
}

/// [`explain_question_message_with`] on the end of a body, from the start
/// of the line that holds its last `index-questions`: the same decision, at
/// a cost that does not grow with the prose before that line. `None` when
/// that line does not open a marker fence, so the body's last opening
/// fence, if any, is before it: explain the whole body instead.
///
/// A caller that finds the marker's last occurrence and the start of its
/// line (a JavaScript host does both with native string searches) passes
/// only the text from there on, and the fence search checks that one line
/// instead of scanning the body back from its end. `body` must start at a
/// line start of the whole message (its first character, or just after a
/// line terminator) and hold no `index-questions` after its first line;
/// given that, a body whose first line opens a marker fence is decided
/// exactly as the whole message would be. The prose returned is empty (the
/// caller's prose is what comes before `body`), and lines and columns in a
/// refusal count from `body`'s first line.
///
/// ```
/// use index_question_block::{explain_question_message_from_fence_line_with, JsonSyntaxError};
/// let read = |payload: &str| {
///     serde_json::from_str::<serde_json::Value>(payload)
///         .map_err(|err| JsonSyntaxError { offset: 0, reason: err.to_string() })
/// };
/// let tail = "```index-questions\n{\"version\": 1, \"questions\": [{\"prompt\": \"Q?\", \"opportunityId\": \"9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4\"}]}\n```";
/// let parsed = explain_question_message_from_fence_line_with(tail, read).unwrap().unwrap();
/// assert_eq!((parsed.prose.as_str(), parsed.block.questions[0].prompt.as_str()), ("", "Q?"));
/// let unclosed = "```index-questions\n{}";
/// let why = explain_question_message_from_fence_line_with(unclosed, read).unwrap().unwrap_err();
/// assert_eq!(why.rule(), "unclosed-fence");
/// assert!(explain_question_message_from_fence_line_with("see ```index-questions", read).is_none());
/// ```
pub fn explain_question_message_from_fence_line_with<T, R>(
    body: &str,
    read_json: R,
) -> Option<Result<ParsedQuestionMessage, NotAQuestionMessage>>
where
    for<'v> &'v T: JsonView,
    R: FnOnce(&str) -> Result<T, JsonSyntaxError>,
{
    let open = open_fence_on_first_line(body)?;
    Some(explain_split(body, split_at(body, open), read_json))
}

/// A body taken apart around its fences, before the payload is read.
struct Parts<'a> {
    /// Everything before the opening fence, trimmed at the end.
    prose: &'a str,
    /// Between the opening fence's line and the closing fence.
    payload: &'a str,
    /// Byte offset of the payload in the body.
    payload_start: usize,
}

impl Parts<'_> {
    fn with_block(&self, block: QuestionBlock) -> ParsedQuestionMessage {
        ParsedQuestionMessage {
            prose: self.prose.to_owned(),
            block,
        }
    }
}

/// Why a body's fences do not make a question message, by byte offsets:
/// lines are counted only when the reason is explained, so refusing a body
/// costs no walk over it.
enum Refusal {
    NoMarkerFence,
    NothingAfterFence { fence: usize },
    Unclosed { fence: usize, length: usize },
    ContentAfterBlock { text: usize },
}

impl Refusal {
    fn explain(self, body: &str) -> NotAQuestionMessage {
        let line = |offset| line_column(body, offset).0;
        match self {
            Refusal::NoMarkerFence => NotAQuestionMessage::NoMarkerFence,
            Refusal::NothingAfterFence { fence } => {
                NotAQuestionMessage::NothingAfterFence { line: line(fence) }
            }
            Refusal::Unclosed { fence, length } => NotAQuestionMessage::Unclosed {
                line: line(fence),
                fence_length: length,
            },
            Refusal::ContentAfterBlock { text } => {
                NotAQuestionMessage::ContentAfterBlock { line: line(text) }
            }
        }
    }
}

/// The fences' rules, in the order the parser checks them: the last opening
/// marker fence, a line after it, the first closing fence of its length,
/// and only whitespace after that.
fn split(body: &str) -> Result<Parts<'_>, Refusal> {
    split_at(body, last_open_fence(body).ok_or(Refusal::NoMarkerFence)?)
}

/// [`split`] once the last opening fence is known.
fn split_at(body: &str, open: OpenFence) -> Result<Parts<'_>, Refusal> {
    let bytes = body.as_bytes();
    let payload_start = terminator_len(bytes, open.end)
        .map(|len| open.end + len)
        .ok_or(Refusal::NothingAfterFence { fence: open.start })?;
    let rest = body.get(payload_start..).unwrap_or_default();
    let close = first_close_fence(rest, open.length).ok_or(Refusal::Unclosed {
        fence: open.start,
        length: open.length,
    })?;
    let after_close = rest.get(close.end..).unwrap_or_default();
    let trailing = after_close.trim_start_matches(js::is_js_whitespace);
    if !trailing.is_empty() {
        return Err(Refusal::ContentAfterBlock {
            text: body.len() - trailing.len(),
        });
    }
    Ok(Parts {
        prose: js::trim_end(body.get(..open.start).unwrap_or_default()),
        payload: rest.get(..close.start).unwrap_or_default(),
        payload_start,
    })
}

/// Byte offset in `payload` of a serde_json error, whose position counts
/// lines by LF and columns by byte.
fn json_error_offset(payload: &str, err: &serde_json::Error) -> usize {
    let mut line_start = 0;
    for _ in 1..err.line() {
        line_start = payload
            .get(line_start..)
            .and_then(|rest| rest.find('\n'))
            .map_or(payload.len(), |i| line_start + i + 1);
    }
    let mut offset = (line_start + err.column().saturating_sub(1)).min(payload.len());
    while !payload.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// serde_json's message without its trailing " at line L column C", which
/// would count within the payload rather than the body.
fn json_error_reason(err: &serde_json::Error) -> String {
    let message = err.to_string();
    match message.rfind(" at line ") {
        Some(cut) => message.get(..cut).unwrap_or_default().to_owned(),
        None => message,
    }
}

/// 1-based line and character column of byte `offset` in `body`, counting
/// LF, CR, CRLF, U+2028 and U+2029 as one line break each. Counted over
/// bytes: each character starts with a byte that is not a continuation
/// byte, and the character is a line terminator when that byte starts one.
fn line_column(body: &str, offset: usize) -> (usize, usize) {
    let bytes = body.as_bytes();
    let before = bytes.get(..offset).unwrap_or(bytes);
    let (mut line, mut column) = (1, 1);
    let mut previous = 0;
    for (at, &byte) in before.iter().enumerate() {
        if byte & 0xC0 == 0x80 {
            continue;
        }
        if terminator_len(before, at).is_some() {
            if !(byte == b'\n' && previous == b'\r') {
                line += 1;
            }
            column = 1;
        } else {
            column += 1;
        }
        previous = byte;
    }
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_columns_count_crlf_once() {
        assert_eq!(line_column("a\r\nb\rc\u{2028}d", 0), (1, 1));
        assert_eq!(line_column("a\r\nb\rc\u{2028}d", 3), (2, 1));
        assert_eq!(line_column("a\r\nb\rc\u{2028}d", 5), (3, 1));
        assert_eq!(line_column("a\r\nb\rc\u{2028}d", 9), (4, 1));
        assert_eq!(line_column("é🙂\u{2029}\u{2028}é🙂x", 19), (3, 4));
        assert_eq!(line_column("\u{228}x", 2), (1, 2));
    }

    #[test]
    fn invalid_json_points_into_the_body() {
        let body = "prose\n\n```index-questions\n{\n  \"version\": 1,,\n}\n```";
        match explain_question_message(body) {
            Err(NotAQuestionMessage::InvalidJson { line, column, .. }) => {
                assert_eq!((line, column), (5, 16));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
