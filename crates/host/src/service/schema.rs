//! JSON Schemas (draft 2020-12) of what the host reads and writes, made
//! from the wire types' own `JsonSchema`: the MCP tools' input and output
//! schemas and the OpenAPI document's components come from here, so each
//! shape is written once, beside its type.
//!
//! The types' doc comments become the schemas' descriptions. They are
//! written for Rust readers, so what only makes sense in rustdoc (examples,
//! intra-doc links, hard-wrapped lines) is turned into plain prose here,
//! and the `format`s schemars gives Rust's number types are left out.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// Which side of a type a schema describes: what it accepts, or what it
/// writes (an `Option` skipped when `None` is optional only when written).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Contract {
    /// What the type's `Deserialize` accepts: requests, tool arguments.
    Reads,
    /// What the type's `Serialize` writes: answers, tool results.
    Writes,
}

/// The settings every schema is made with: draft 2020-12 (MCP's and
/// OpenAPI 3.1's dialect).
pub(crate) fn settings(contract: Contract) -> SchemaSettings {
    let settings = SchemaSettings::draft2020_12();
    match contract {
        Contract::Reads => settings,
        Contract::Writes => settings.for_serialize(),
    }
}

/// `T`'s schema as a tool states it: a whole document (its definitions
/// inside), made [`plain`], without the root's title and description,
/// which name the Rust type.
pub(crate) fn tool_schema<T: JsonSchema>(contract: Contract) -> Arc<JsonObject> {
    let mut schema = settings(contract)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    plain(&mut schema);
    let mut object = match schema {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    };
    object.remove("title");
    object.remove("description");
    Arc::new(object)
}

/// A finished schema, or a document of them, made plain throughout: every
/// description as prose, every nullable type as one-type branches, and no
/// `format` JSON Schema does not define
/// (schemars names Rust's integer and float types, `uint`, `double`, …,
/// which validators such as ajv warn about and no client can use). Ours
/// are made so here, and so are the tools' input schemas rmcp makes.
pub(crate) fn plain(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            plain_object(object);
            object.values_mut().for_each(plain);
        }
        Value::Array(items) => items.iter_mut().for_each(plain),
        _ => {}
    }
}

fn plain_object(object: &mut serde_json::Map<String, Value>) {
    if let Some(Value::String(description)) = object.get_mut("description") {
        *description = for_people(description);
    }
    if object
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| RUST_FORMATS.contains(&format))
    {
        object.remove("format");
    }
    // A nullable field as branches of one type each: `type: ["string",
    // "null"]` is JSON Schema, but clients that map schemas onto a
    // one-type dialect (the MCP Inspector warns of it, and some model
    // providers' function declarations) drop or refuse it. The other
    // keywords stay beside the branches, where each applies to its type.
    if !object.contains_key("anyOf")
        && let Some(Value::Array(types)) = object.get("type")
        && types.len() > 1
    {
        let branches = types
            .iter()
            .map(|kind| serde_json::json!({ "type": kind }))
            .collect();
        object.remove("type");
        object.insert("anyOf".to_owned(), Value::Array(branches));
    }
}

/// The `format`s schemars writes for Rust's number types.
const RUST_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// A doc comment as prose: code examples left out, intra-doc links as
/// their text, hard-wrapped lines joined; paragraphs stay paragraphs.
///
/// ```text
/// "See [`turns`](Self::turns) and\nthe [`Park`].\n\n```\ncode\n```" → "See `turns` and the `Park`."
/// ```
pub(crate) fn for_people(doc: &str) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut in_code = false;
    for line in doc.lines() {
        let line = line.trim();
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    unlink(&paragraphs.join("\n\n"))
}

/// `` [`x`](target) `` and `` [`x`] `` as `` `x` ``; other brackets stay.
fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find("`]") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let code = &after[..end + 1];
        out.push_str(code);
        rest = &after[end + 2..];
        if rest.starts_with('(')
            && let Some(close) = rest.find(')')
        {
            rest = &rest[close + 1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_read_as_prose() {
        assert_eq!(
            for_people(
                "See [`turns`](Self::turns) and\nthe [`Park`].\n\n```\nlet x = 1;\n```\n\nA [default: `local`] stays."
            ),
            "See `turns` and the `Park`.\n\nA [default: `local`] stays."
        );
        assert_eq!(
            for_people("[`NEGOTIATION_MAX_TURNS`]."),
            "`NEGOTIATION_MAX_TURNS`."
        );
        assert_eq!(for_people("an [`unclosed"), "an [`unclosed");
        assert_eq!(for_people("é [`ü`](x) ö"), "é `ü` ö");
    }

    #[test]
    fn a_nullable_type_becomes_branches_of_one_type_each() {
        let mut schema = serde_json::json!({
            "properties": {
                "outcome": {"type": ["string", "null"], "minLength": 1},
                "type": {"type": "string"},
            }
        });
        plain(&mut schema);
        assert_eq!(
            schema["properties"]["outcome"],
            serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}], "minLength": 1})
        );
        // A property named `type` is a schema, left as it is.
        assert_eq!(
            schema["properties"]["type"],
            serde_json::json!({"type": "string"})
        );
    }

    #[test]
    fn a_schema_for_tools_drops_the_rust_name_and_keeps_the_rest() {
        let schema = tool_schema::<crate::service::wire::ListQuery>(Contract::Reads);
        assert_eq!(schema.get("type"), Some(&Value::from("object")));
        assert!(!schema.contains_key("title"));
        assert!(!schema.contains_key("description"));
        assert_eq!(
            schema.get("additionalProperties"),
            Some(&Value::Bool(false))
        );
    }
}
