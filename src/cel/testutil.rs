//! Test helpers: YAML text to JSON (through saphyr-parser events, with Kubernetes'
//! plain-scalar resolution for the common cases) until the spanned loader lands, and
//! CRD schemas to structural schemas through the model decoder.

use saphyr_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Value};

use crate::schema::structural::{Structural, from_props};
use crate::source::{Node, Span};

/// Every document of a YAML stream as JSON.
pub fn yaml_documents(text: &str) -> Vec<Value> {
    let mut events = Vec::new();
    for ev in Parser::new_from_str(text) {
        match ev {
            Ok((e, _)) => events.push(e),
            Err(_) => return Vec::new(),
        }
    }
    let mut docs = Vec::new();
    let mut i = 0;
    let mut anchors = std::collections::HashMap::new();
    while i < events.len() {
        if matches!(events[i], Event::DocumentStart(_)) {
            i += 1;
            if let Some(v) = value(&events, &mut i, &mut anchors)
                && !v.is_null()
            {
                docs.push(v);
            }
        } else {
            i += 1;
        }
    }
    docs
}

fn value(
    events: &[Event<'_>],
    i: &mut usize,
    anchors: &mut std::collections::HashMap<usize, Value>,
) -> Option<Value> {
    let ev = events.get(*i)?;
    *i += 1;
    let (v, anchor) = match ev {
        Event::Scalar(s, style, anchor, _) => (scalar(s, *style), *anchor),
        Event::Alias(id) => (anchors.get(id).cloned().unwrap_or(Value::Null), 0),
        Event::SequenceStart(anchor, _) => {
            let mut items = Vec::new();
            while !matches!(events.get(*i), Some(Event::SequenceEnd) | None) {
                items.push(value(events, i, anchors)?);
            }
            *i += 1;
            (Value::Array(items), *anchor)
        }
        Event::MappingStart(anchor, _) => {
            let mut m = Map::new();
            while !matches!(events.get(*i), Some(Event::MappingEnd) | None) {
                let k = value(events, i, anchors)?;
                let v = value(events, i, anchors)?;
                let key = match k {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                m.insert(key, v);
            }
            *i += 1;
            (Value::Object(m), *anchor)
        }
        Event::DocumentEnd | Event::StreamEnd => return Some(Value::Null),
        _ => return Some(Value::Null),
    };
    if anchor > 0 {
        anchors.insert(anchor, v.clone());
    }
    Some(v)
}

fn scalar(s: &str, style: ScalarStyle) -> Value {
    if style != ScalarStyle::Plain {
        return Value::String(s.to_string());
    }
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" | "yes" | "on" => return Value::Bool(true),
        "false" | "False" | "FALSE" | "no" | "off" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(i) = s.parse::<i64>() {
        return Value::from(i);
    }
    if s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '.')
        && let Ok(f) = s.parse::<f64>()
        && f.is_finite()
    {
        return Value::from(f);
    }
    Value::String(s.to_string())
}

/// The structural schemas of every version of a CRD document (with their paths).
pub fn crd_structurals(doc: &Value) -> Vec<(String, Structural)> {
    let node = Node::from_json(doc, Span::default());
    let (crd, _diags) = crate::model::crd::decode(&node);
    let mut out = Vec::new();
    for (i, v) in crd.versions.iter().enumerate() {
        if let Some(props) = &v.schema
            && let Ok(s) = from_props(props)
        {
            out.push((format!("spec.versions[{i}].schema.openAPIV3Schema"), s));
        }
    }
    out
}

/// A structural schema from JSON schema text (through the model decoder).
pub fn structural(schema: &Value) -> Structural {
    let crd = serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Thing", "plural": "things"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}]
        }
    });
    crd_structurals(&crd)
        .pop()
        .map(|(_, s)| s)
        .expect("schema decodes")
}
