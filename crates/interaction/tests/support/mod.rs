//! What both vector suites share: reading a JSONL file of recorded
//! vectors, and a parse result in the form the vectors record it.

use index_interaction::InvalidInteraction;
use serde_json::Value;

/// A parse result as recorded: the output as JSON, or each issue as
/// `[path, code]`.
pub fn recorded<T: serde::Serialize>(
    parsed: Result<T, InvalidInteraction>,
) -> Result<Value, Value> {
    parsed
        .map(|value| serde_json::to_value(value).unwrap())
        .map_err(|err| {
            Value::Array(
                err.iter()
                    .map(|i| serde_json::json!([i.path.to_string(), i.code.as_str()]))
                    .collect(),
            )
        })
}

/// Every vector in `jsonl`, after checking there are at least `at_least`.
pub fn vectors(jsonl: &str, at_least: usize) -> Vec<Value> {
    let vectors: Vec<Value> = jsonl
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(vectors.len() >= at_least, "{}", vectors.len());
    vectors
}

/// Fails, listing each, if `check` finds any vector that differs.
pub fn assert_all_match(vectors: &[Value], check: impl Fn(&Value) -> Option<String>) {
    let failures: Vec<String> = vectors.iter().filter_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}
