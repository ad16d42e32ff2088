//! Well-known kinds, and the permission ask.

use crate::fields::{
    FieldBase, InteractionAnswerSpec, InteractionField, InteractionResponseScope, SelectField,
    SelectOption, SelectType, TextField, TextType,
};
use crate::number::wire_enum;

/// What a request asks for: one of the kinds every renderer knows, or
/// another label (a namespaced vendor kind, say), which still renders from
/// its answer spec. Every string round-trips: reading `"question"` gives
/// [`Question`](InteractionKind::Question), anything else
/// [`Other`](InteractionKind::Other), and [`as_str`](InteractionKind::as_str)
/// gives the string back.
///
/// ```
/// use index_interaction::InteractionKind;
/// assert_eq!(InteractionKind::new("permission"), InteractionKind::Permission);
/// let vendor = InteractionKind::new("acme.deploy/review");
/// assert!(matches!(vendor, InteractionKind::Other(_)));
/// assert_eq!(vendor.as_str(), "acme.deploy/review");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum InteractionKind {
    /// The agent asks the person to answer or choose.
    Question,
    /// The agent asks to run a tool or command; the answer is a grant.
    Permission,
    /// The agent shares a plan for review.
    Plan,
    /// Any other kind.
    Other(OtherKind),
}

/// A kind that is not one of the well-known ones; made only by
/// [`InteractionKind::new`], so it never spells a well-known kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OtherKind(String);

impl OtherKind {
    /// The kind as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl InteractionKind {
    const WELL_KNOWN: [InteractionKind; 3] = [
        InteractionKind::Question,
        InteractionKind::Permission,
        InteractionKind::Plan,
    ];

    /// The kind named `kind`.
    pub fn new(kind: impl Into<String>) -> Self {
        let kind = kind.into();
        Self::WELL_KNOWN
            .into_iter()
            .find(|known| known.as_str() == kind)
            .unwrap_or(InteractionKind::Other(OtherKind(kind)))
    }

    /// The kind on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            InteractionKind::Question => "question",
            InteractionKind::Permission => "permission",
            InteractionKind::Plan => "plan",
            InteractionKind::Other(other) => other.as_str(),
        }
    }

    /// Whether every renderer knows it.
    pub fn is_well_known(&self) -> bool {
        !matches!(self, InteractionKind::Other(_))
    }
}

impl std::fmt::Display for InteractionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for InteractionKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The field carrying a permission answer's grant.
pub const PERMISSION_GRANT_FIELD: &str = "grant";

/// The optional free-text field carrying the person's reason.
pub const PERMISSION_FEEDBACK_FIELD: &str = "feedback";

wire_enum! {
    /// How much a person allows: once, for the session, from now on, or not at
    /// all. Carried in the answer's grant field.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum PermissionGrant {
        /// This time only.
        AllowOnce = "allow_once",
        /// For the rest of the session.
        AllowSession = "allow_session",
        /// From now on.
        AllowAlways = "allow_always",
        /// No.
        Deny = "deny",
    }
}

impl PermissionGrant {
    /// The response scope a grant needs to be allowed; `None` for deny,
    /// which is always allowed.
    pub fn required_scope(self) -> Option<InteractionResponseScope> {
        match self {
            PermissionGrant::AllowOnce => Some(InteractionResponseScope::Interaction),
            PermissionGrant::AllowSession => Some(InteractionResponseScope::Session),
            PermissionGrant::AllowAlways => Some(InteractionResponseScope::Persistent),
            PermissionGrant::Deny => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            PermissionGrant::AllowOnce => "Allow this once",
            PermissionGrant::AllowSession => "Allow for the session",
            PermissionGrant::AllowAlways => "Allow from now on",
            PermissionGrant::Deny => "Deny",
        }
    }
}

/// A permission answer spec that can never offer a broader grant than the
/// request's scopes allow: one grant per scope in `response_scopes` (this
/// interaction only, when `None`), deny always, and a multiline feedback
/// field unless `allow_feedback` is false.
///
/// ```
/// use index_interaction::{permission_answer_spec, InteractionField, InteractionResponseScope};
/// let spec = permission_answer_spec(Some(&[InteractionResponseScope::Session]), false);
/// let InteractionField::Select(grant) = &spec.fields[0] else { unreachable!() };
/// let values: Vec<&str> = grant.options.iter().map(|o| o.value.as_str()).collect();
/// assert_eq!(values, ["allow_session", "deny"]);
/// assert_eq!(spec.fields.len(), 1);
/// ```
pub fn permission_answer_spec(
    response_scopes: Option<&[InteractionResponseScope]>,
    allow_feedback: bool,
) -> InteractionAnswerSpec {
    let scopes = response_scopes.unwrap_or(&[InteractionResponseScope::Interaction]);
    let options = PermissionGrant::ALL
        .into_iter()
        .filter(|grant| {
            grant
                .required_scope()
                .is_none_or(|scope| scopes.contains(&scope))
        })
        .map(|grant| SelectOption {
            value: grant.as_str().to_owned(),
            label: grant.label().to_owned(),
            description: None,
        })
        .collect();
    let mut fields = vec![InteractionField::Select(SelectField {
        base: FieldBase {
            required: Some(true),
            ..FieldBase::new(PERMISSION_GRANT_FIELD, "Your decision")
        },
        field_type: SelectType,
        options,
        multi: None,
        allow_custom: None,
        default: None,
    })];
    if allow_feedback {
        fields.push(InteractionField::Text(TextField {
            base: FieldBase::new(PERMISSION_FEEDBACK_FIELD, "Anything to add? (optional)"),
            field_type: TextType,
            multiline: Some(true),
            placeholder: None,
            max_length: None,
            default: None,
        }));
    }
    InteractionAnswerSpec { fields }
}
