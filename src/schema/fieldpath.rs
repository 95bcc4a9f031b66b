//! `ValidFieldPath`: a JSON path of field and map accessors (`.spec.a['b']`) checked
//! against a structural schema. Used by selectable fields and by the `fieldPath` of
//! `x-kubernetes-validations` rules.

use crate::schema::structural::Structural;

/// One step of a validated path: a property name or a map key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Field(String),
    Key(String),
}

/// Renders steps like `field.Path.String()` (`spec.a[b]`).
pub fn render(steps: &[PathStep]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            PathStep::Field(n) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(n);
            }
            PathStep::Key(k) => {
                out.push('[');
                out.push_str(k);
                out.push(']');
            }
        }
    }
    out
}

/// The split function of the server's scanner: `.`, `[`, `]` are single tokens, a
/// single-quoted string is one token, anything else runs up to the next delimiter.
fn tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &s[i..];
        let rb = rest.as_bytes();
        if rb[0] == b'\'' {
            let mut end = None;
            for j in 1..rb.len() {
                if rb[j] == b'\'' && rb[j - 1] != b'\\' {
                    end = Some(j + 1);
                    break;
                }
            }
            let e = end.unwrap_or(rb.len());
            out.push(&rest[..e]);
            i += e;
            continue;
        }
        match rb.iter().position(|c| matches!(c, b'.' | b'[' | b']')) {
            Some(0) => {
                out.push(&rest[..1]);
                i += 1;
            }
            Some(p) => {
                out.push(&rest[..p]);
                i += p;
            }
            None => {
                out.push(rest);
                i = b.len();
            }
        }
    }
    out
}

fn unescape_single_quote(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\u{b}'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some('\n') => {
                // `.` does not match a newline: the backslash stays.
                out.push('\\');
                out.push('\n');
            }
            Some(other) => return Err(format!("invalid escape char \\{other}")),
            None => out.push('\\'),
        }
    }
    Ok(out)
}

/// The error of [`valid_field_path`] where the server's `ValidFieldPath` dereferences a
/// nil schema and panics: a step after a map whose `additionalProperties` is a boolean,
/// or any step when there is no structural schema at all. The API server then answers
/// the whole request with [`SERVER_PANIC_RESPONSE`].
pub const NIL_SCHEMA_PANIC: &str =
    "runtime error: invalid memory address or nil pointer dereference";

/// What the API server answers (HTTP 500) to a request that panicked
/// (`filters.WithPanicRecovery`).
pub const SERVER_PANIC_RESPONSE: &str =
    "This request caused apiserver to panic. Look in the logs for details.";

/// Validates `json_path` against `schema`; returns the steps and the schema found.
pub fn valid_field_path<'s>(
    json_path: &str,
    schema: &'s Structural,
    allow_array_notation: bool,
) -> Result<(Vec<PathStep>, Option<&'s Structural>), String> {
    valid_field_path_from(json_path, Some(schema), allow_array_notation)
}

/// [`valid_field_path`] from a schema that may be missing (`None`: the server's nil
/// `*Structural`, e.g. when the schema is not structural).
pub fn valid_field_path_from<'s>(
    json_path: &str,
    schema: Option<&'s Structural>,
    allow_array_notation: bool,
) -> Result<(Vec<PathStep>, Option<&'s Structural>), String> {
    let toks = tokens(json_path);
    let mut it = toks.into_iter();
    let mut steps = Vec::new();
    let mut current: Option<&Structural> = schema;
    let invalid = || "does not refer to a valid field".to_string();
    let mut append =
        |name: String, named: bool, current: &mut Option<&'s Structural>| -> Result<(), String> {
            let Some(s) = *current else {
                return Err(invalid());
            };
            if named {
                steps.push(PathStep::Field(name.clone()));
                match s.property(&name) {
                    Some(p) => *current = Some(p),
                    None => return Err(invalid()),
                }
            } else {
                steps.push(PathStep::Key(name));
                *current = s.additional_properties_schema();
            }
            Ok(())
        };
    let named_or_map = |current: &Option<&Structural>| -> Result<bool, String> {
        match current {
            Some(s) if !s.properties.is_empty() => Ok(true),
            Some(s) if s.additional_properties.is_some() => Ok(false),
            Some(_) => Err(invalid()),
            // The server reads `schema.Properties` of a nil schema here.
            None => Err(NIL_SCHEMA_PANIC.to_string()),
        }
    };
    while let Some(tok) = it.next() {
        match tok {
            "[" => {
                if !allow_array_notation {
                    return Err("array notation is not allowed".into());
                }
                let Some(tok) = it.next() else {
                    return Err("unexpected end of JSON path".into());
                };
                if tok.len() < 2 || !tok.starts_with('\'') || !tok.ends_with('\'') {
                    return Err(format!("expected single quoted string but got {tok}"));
                }
                let name = unescape_single_quote(&tok[1..tok.len() - 1])
                    .map_err(|e| format!("invalid string literal: {e}"))?;
                let named = named_or_map(&current)?;
                append(name, named, &mut current)?;
                match it.next() {
                    None => return Err("unexpected end of JSON path".into()),
                    Some("]") => {}
                    Some(t) => return Err(format!("expected ] but got {t}")),
                }
            }
            "." => {
                let Some(tok) = it.next() else {
                    return Err("unexpected end of JSON path".into());
                };
                let named = named_or_map(&current)?;
                append(tok.to_string(), named, &mut current)?;
            }
            other => return Err(format!("expected [ or . but got: {other}")),
        }
    }
    Ok((steps, current))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FieldPath;
    use crate::source::{Node, Span};

    fn schema(v: serde_json::Value) -> Structural {
        let n = Node::from_json(&v, Span::default());
        let (p, _) = crate::model::schema::decode(&n, &FieldPath::root("s"));
        crate::schema::structural::from_props(&p).unwrap()
    }

    #[test]
    fn validates_paths_like_the_server() {
        let s = schema(serde_json::json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"color": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}}));
        let (steps, found) = valid_field_path(".spec.color", &s, false).unwrap();
        assert_eq!(render(&steps), "spec.color");
        assert_eq!(found.unwrap().generic.type_, "string");
        assert_eq!(
            valid_field_path(".spec.nope", &s, false).unwrap_err(),
            "does not refer to a valid field"
        );
        assert_eq!(
            valid_field_path("spec", &s, false).unwrap_err(),
            "expected [ or . but got: spec"
        );
        assert_eq!(
            valid_field_path(".spec['color']", &s, false).unwrap_err(),
            "array notation is not allowed"
        );
        let (steps, _) = valid_field_path(".spec.labels['a.b']", &s, true).unwrap();
        assert_eq!(render(&steps), "spec.labels[a.b]");
        assert_eq!(
            valid_field_path(".spec.", &s, true).unwrap_err(),
            "unexpected end of JSON path"
        );
    }
}
