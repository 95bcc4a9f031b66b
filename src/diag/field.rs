//! Field errors with the server's exact text (apimachinery `field.Error`): the error
//! type, the bad value rendered as Go renders it, and the detail.

use std::fmt;

use super::gofmt;
use super::path::FieldPath;

/// apimachinery's `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooShort,
    TooMany,
    TooFew,
    Internal,
    TypeInvalid,
}

impl ErrorType {
    /// The `metav1.CauseType` reported in the API status.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooShort => "FieldValueTooShort",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::TooFew => "FieldValueTooFew",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The canonical message of the type (`ErrorType.String()`).
    pub fn text(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooShort => "Too short",
            ErrorType::TooMany => "Too many",
            ErrorType::TooFew => "Too few",
            ErrorType::Internal => "Internal error",
        }
    }

    /// Whether the error text shows the bad value.
    fn shows_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required
                | ErrorType::Forbidden
                | ErrorType::TooLong
                | ErrorType::TooShort
                | ErrorType::Internal
        )
    }
}

/// A bad value as the Go code held it, which decides how the server prints it:
/// simple types with `%v`, strings with `%q`, everything else as JSON.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// The value is not printed (`field.OmitValueType`).
    Omit,
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Anything else (maps, lists, nil), printed with `json.Marshal`.
    Json(serde_json::Value),
    /// A value already rendered the way the server prints it (e.g. `json.Marshal` of
    /// a Go struct, whose field order a JSON map cannot keep).
    Raw(String),
}

impl BadValue {
    /// About the length of [`BadValue::render`] (exact for strings without escapes),
    /// without rendering it.
    pub fn text_len(&self) -> usize {
        match self {
            BadValue::Omit => 0,
            BadValue::Str(s) | BadValue::Raw(s) => s.len().saturating_add(2),
            BadValue::Int(_) | BadValue::Float(_) | BadValue::Bool(_) => 8,
            BadValue::Json(v) => json_text_len(v),
        }
    }

    pub fn render(&self) -> String {
        match self {
            BadValue::Omit => String::new(),
            BadValue::Str(s) => gofmt::quote(s),
            BadValue::Int(i) => i.to_string(),
            BadValue::Float(f) => gofmt::float_v(*f),
            BadValue::Bool(b) => b.to_string(),
            BadValue::Json(v) => gofmt::json_marshal(v),
            BadValue::Raw(s) => s.clone(),
        }
    }
}

/// About the length of `v` as compact JSON (iterative: values can be 1,000 deep).
fn json_text_len(v: &serde_json::Value) -> usize {
    let mut len = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        len = len.saturating_add(match v {
            serde_json::Value::Null => 4,
            serde_json::Value::Bool(_) => 5,
            serde_json::Value::Number(_) => 8,
            serde_json::Value::String(s) => s.len().saturating_add(3),
            serde_json::Value::Array(items) => {
                stack.extend(items);
                2
            }
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    len = len.saturating_add(key.len().saturating_add(4));
                    stack.push(value);
                }
                2
            }
        });
    }
    len
}

impl From<&str> for BadValue {
    fn from(s: &str) -> Self {
        BadValue::Str(s.to_string())
    }
}

impl From<String> for BadValue {
    fn from(s: String) -> Self {
        BadValue::Str(s)
    }
}

impl From<i64> for BadValue {
    fn from(i: i64) -> Self {
        BadValue::Int(i)
    }
}

impl From<bool> for BadValue {
    fn from(b: bool) -> Self {
        BadValue::Bool(b)
    }
}

/// A value of a manifest as Go's unstructured decoder holds it (int64, float64, bool,
/// string, or map/slice/nil printed as JSON).
impl From<&crate::source::Value> for BadValue {
    fn from(v: &crate::source::Value) -> Self {
        use crate::source::Value;
        match v {
            Value::String(s) => BadValue::Str(s.clone()),
            Value::Int(i) => BadValue::Int(*i),
            Value::Float(f) => BadValue::Float(*f),
            Value::Bool(b) => BadValue::Bool(*b),
            other => BadValue::Json(other.to_json()),
        }
    }
}

/// One `field.Error`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub error_type: ErrorType,
    pub field: FieldPath,
    pub value: BadValue,
    pub detail: String,
}

impl FieldError {
    pub fn new(
        error_type: ErrorType,
        field: FieldPath,
        value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        let detail = detail.into();
        // Every field error of CRD and resource checks is built here: the one place
        // that sees them all (see `budget`). The value is part of the text: a list of
        // 20,000 map keys quoted by each of 17,000 duplicate-key errors was 2.4 GB.
        super::budget::charge(
            field
                .as_str()
                .len()
                .saturating_add(detail.len())
                .saturating_add(value.text_len()),
        );
        FieldError {
            error_type,
            field,
            value,
            detail,
        }
    }

    pub fn required(field: FieldPath, detail: impl Into<String>) -> Self {
        FieldError::new(ErrorType::Required, field, BadValue::Omit, detail)
    }

    pub fn forbidden(field: FieldPath, detail: impl Into<String>) -> Self {
        FieldError::new(ErrorType::Forbidden, field, BadValue::Omit, detail)
    }

    pub fn invalid(
        field: FieldPath,
        value: impl Into<BadValue>,
        detail: impl Into<String>,
    ) -> Self {
        FieldError::new(ErrorType::Invalid, field, value.into(), detail)
    }

    pub fn type_invalid(
        field: FieldPath,
        value: impl Into<BadValue>,
        detail: impl Into<String>,
    ) -> Self {
        FieldError::new(ErrorType::TypeInvalid, field, value.into(), detail)
    }

    pub fn duplicate(field: FieldPath, value: impl Into<BadValue>) -> Self {
        FieldError::new(ErrorType::Duplicate, field, value.into(), "")
    }

    pub fn not_found(field: FieldPath, value: impl Into<BadValue>) -> Self {
        FieldError::new(ErrorType::NotFound, field, value.into(), "")
    }

    pub fn internal(field: FieldPath, detail: impl Into<String>) -> Self {
        FieldError::new(ErrorType::Internal, field, BadValue::Omit, detail)
    }

    /// `Unsupported value: "x": supported values: "a", "b"`.
    pub fn not_supported<S: AsRef<str>>(
        field: FieldPath,
        value: impl Into<BadValue>,
        supported: &[S],
    ) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| gofmt::quote(s.as_ref())).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError::new(ErrorType::NotSupported, field, value.into(), detail)
    }

    /// `Too long: may not be more than N bytes`.
    pub fn too_long(field: FieldPath, max_length: i64) -> Self {
        let detail = if max_length >= 0 {
            let unit = if max_length == 1 { "byte" } else { "bytes" };
            format!("may not be more than {max_length} {unit}")
        } else {
            "value is too long".to_string()
        };
        FieldError::new(ErrorType::TooLong, field, BadValue::Omit, detail)
    }

    /// `Too many: 3: must have at most 2 items`.
    pub fn too_many(field: FieldPath, actual: i64, max: i64) -> Self {
        let detail = if max >= 0 {
            let unit = if max == 1 { "item" } else { "items" };
            format!("must have at most {max} {unit}")
        } else {
            "has too many items".to_string()
        };
        let value = if actual >= 0 {
            BadValue::Int(actual)
        } else {
            BadValue::Omit
        };
        FieldError::new(ErrorType::TooMany, field, value, detail)
    }

    /// The error text without the field (`ErrorBody()`).
    pub fn body(&self) -> String {
        let mut s = String::from(self.error_type.text());
        if self.error_type.shows_value() && self.value != BadValue::Omit {
            s.push_str(": ");
            s.push_str(&self.value.render());
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> FieldPath {
        FieldPath::root(s)
    }

    #[test]
    fn texts_match_apimachinery() {
        assert_eq!(
            FieldError::invalid(
                path("spec.replicas"),
                15,
                "spec.replicas in body should be less than or equal to 10"
            )
            .to_string(),
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"
        );
        assert_eq!(
            FieldError::required(path("spec.scope"), "").to_string(),
            "spec.scope: Required value"
        );
        assert_eq!(
            FieldError::not_supported(path("spec.scope"), "Foo", &["Cluster", "Namespaced"])
                .to_string(),
            "spec.scope: Unsupported value: \"Foo\": supported values: \"Cluster\", \"Namespaced\""
        );
        assert_eq!(
            FieldError::forbidden(path("x"), "must not be set").to_string(),
            "x: Forbidden: must not be set"
        );
        assert_eq!(
            FieldError::too_many(path("l"), 3, 1).to_string(),
            "l: Too many: 3: must have at most 1 item"
        );
        assert_eq!(
            FieldError::too_long(path("s"), 63).to_string(),
            "s: Too long: may not be more than 63 bytes"
        );
        assert_eq!(
            FieldError::duplicate(path("v"), "a").to_string(),
            "v: Duplicate value: \"a\""
        );
        assert_eq!(
            FieldError::invalid(path("f"), BadValue::Float(1e8), "").to_string(),
            "f: Invalid value: 1e+08"
        );
        assert_eq!(
            FieldError::invalid(
                path("m"),
                BadValue::Json(serde_json::json!({"b": 1, "a": "<"})),
                "d"
            )
            .to_string(),
            "m: Invalid value: {\"a\":\"\\u003c\",\"b\":1}: d"
        );
    }
}
