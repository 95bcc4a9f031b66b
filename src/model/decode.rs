//! Strict decoding of a spanned document into typed views, reproducing what the API
//! server's JSON decoder (sigs.k8s.io/json in strict mode) reports:
//!
//! * wrong JSON types: `json: cannot unmarshal string into Go struct field
//!   JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.maxLength of type
//!   int64` — only the first one counts, as in Go, and an error raised inside a value
//!   with its own unmarshaler (`items`, `additionalProperties`, …) wins over earlier ones;
//! * unknown fields: `unknown field "spec.versions[0].foo"`, reported only when the
//!   document has no type error, and never inside the subtrees the server decodes
//!   leniently (its custom unmarshalers of `items`, `additionalProperties`,
//!   `additionalItems` and `dependencies` use the non-strict decoder).

use std::collections::HashSet;
use std::rc::Rc;

use crate::diag::{Diagnostic, FieldPath};
use crate::source::{Node, Span, Value};

/// Where a value stands, in the three notations the server's messages use. Decoding
/// enters an `At` for every value of a CRD but reads one only for an error, so it is
/// a chain of steps kept on the decoder's stack (each borrows its parent and its key
/// from the tree), spelled out on demand. Entering one allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct At<'a> {
    parent: Option<&'a At<'a>>,
    kind: StepKind<'a>,
    /// Go struct owning the last struct field entered (`JSONSchemaProps`).
    go_struct: &'static str,
    /// Inside a leniently decoded subtree: no unknown-field errors, and type errors are
    /// attributed to the struct holding the subtree (as Go's error context does).
    lenient: Option<&'static str>,
}

#[derive(Clone, Debug, Default)]
enum StepKind<'a> {
    /// The document root.
    #[default]
    Root,
    /// The start of a standalone value: its paths in full.
    Base(Rc<Spelled>),
    /// A struct field.
    Field(&'a str),
    /// A map entry.
    Key(&'a str),
    /// A list element.
    Index(usize),
}

/// An `At` spelled out.
#[derive(Clone, Debug, Default)]
struct Spelled {
    /// The server's field path (`spec.versions[0].schema.openAPIV3Schema.properties[spec]`).
    path: FieldPath,
    /// The strict decoder's path (`spec.versions[0].schema.openAPIV3Schema.properties.spec`).
    strict_path: String,
    /// Struct field names from the root, joined with dots (`spec.versions.schema`).
    go_stack: String,
}

impl Spelled {
    fn push(&mut self, kind: &StepKind) {
        match kind {
            StepKind::Root => {}
            StepKind::Base(base) => *self = (**base).clone(),
            StepKind::Field(name) => {
                if !self.go_stack.is_empty() {
                    self.go_stack.push('.');
                }
                self.go_stack.push_str(name);
                if !self.strict_path.is_empty() {
                    self.strict_path.push('.');
                }
                self.strict_path.push_str(name);
                self.path = self.path.child(name);
            }
            StepKind::Key(key) => {
                if !self.strict_path.is_empty() {
                    self.strict_path.push('.');
                }
                self.strict_path.push_str(key);
                self.path = self.path.key(key);
            }
            StepKind::Index(index) => {
                use std::fmt::Write as _;
                let _ = write!(self.strict_path, "[{index}]");
                self.path = self.path.index(*index);
            }
        }
    }
}

impl<'a> At<'a> {
    /// The document root.
    pub fn root() -> Self {
        At::default()
    }

    /// A standalone value found at `path` (used when decoding a schema on its own).
    pub fn at_path(path: &FieldPath, go_struct: &'static str) -> Self {
        let s = path.as_str();
        let mut strict = String::new();
        let mut stack = String::new();
        // Convert `a.b[key][0]` into `a.b.key[0]` and `a.b`.
        let mut rest = s;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('[') {
                let end = r.find(']').unwrap_or(r.len());
                let inner = &r[..end];
                if inner.parse::<usize>().is_ok() {
                    strict.push('[');
                    strict.push_str(inner);
                    strict.push(']');
                } else {
                    strict.push('.');
                    strict.push_str(inner);
                }
                rest = r.get(end + 1..).unwrap_or("");
            } else {
                let r = rest.strip_prefix('.').unwrap_or(rest);
                let end = r.find(['.', '[']).unwrap_or(r.len());
                let name = &r[..end];
                if !strict.is_empty() {
                    strict.push('.');
                }
                strict.push_str(name);
                if !stack.is_empty() {
                    stack.push('.');
                }
                stack.push_str(name);
                rest = &r[end..];
            }
        }
        At {
            parent: None,
            kind: StepKind::Base(Rc::new(Spelled {
                path: path.clone(),
                strict_path: strict,
                go_stack: stack,
            })),
            go_struct,
            lenient: None,
        }
    }

    fn then<'b>(&'b self, kind: StepKind<'b>, go_struct: &'static str) -> At<'b> {
        At {
            parent: Some(self),
            kind,
            go_struct,
            lenient: self.lenient,
        }
    }

    /// A struct field `name` of the Go struct `owner`.
    pub fn field<'b>(&'b self, owner: &'static str, name: &'b str) -> At<'b> {
        self.then(StepKind::Field(name), owner)
    }

    /// A map entry.
    pub fn key<'b>(&'b self, key: &'b str) -> At<'b> {
        self.then(StepKind::Key(key), self.go_struct)
    }

    /// A list element.
    pub fn index(&self, index: usize) -> At<'_> {
        self.then(StepKind::Index(index), self.go_struct)
    }

    fn is_lenient(&self) -> bool {
        self.lenient.is_some()
    }

    /// The three paths, spelled out from the root.
    fn spelled(&self) -> Spelled {
        let mut steps = Vec::new();
        let mut cur = Some(self);
        while let Some(step) = cur {
            steps.push(&step.kind);
            if matches!(step.kind, StepKind::Base(_)) {
                break;
            }
            cur = step.parent;
        }
        let mut out = Spelled::default();
        for kind in steps.into_iter().rev() {
            out.push(kind);
        }
        out
    }

    /// The server's field path.
    pub fn path(&self) -> FieldPath {
        self.spelled().path
    }

    /// Where the value comes in the JSON kubectl sends: it re-encodes the manifest from
    /// a Go map, so every object's keys are in byte order, whatever the file's order.
    fn order(&self) -> Vec<OrderStep> {
        self.order_refs()
            .into_iter()
            .map(|step| match step {
                OrderRef::Key(name) => OrderStep::Key(name.into()),
                OrderRef::Index(i) => OrderStep::Index(i),
            })
            .collect()
    }

    /// Whether this value comes before `order` in the sent JSON ([`Self::order`] `<`
    /// `order`), without building its order: a CRD with 60,000 fields of the wrong
    /// type 400 levels deep spelled out and ordered every one of them (2.5 s), to keep
    /// the first.
    fn precedes(&self, order: &[OrderStep]) -> bool {
        let theirs = order.iter().map(|step| match step {
            OrderStep::Key(name) => OrderRef::Key(name),
            OrderStep::Index(i) => OrderRef::Index(*i),
        });
        self.order_refs().into_iter().lt(theirs)
    }

    /// [`Self::order`], borrowed from the steps.
    fn order_refs(&self) -> Vec<OrderRef<'_>> {
        let mut steps = Vec::new();
        let mut cur = Some(self);
        while let Some(step) = cur {
            match &step.kind {
                StepKind::Root => {}
                StepKind::Base(_) => break,
                StepKind::Field(name) | StepKind::Key(name) => steps.push(OrderRef::Key(name)),
                StepKind::Index(i) => steps.push(OrderRef::Index(*i)),
            }
            cur = step.parent;
        }
        steps.reverse();
        steps
    }
}

/// A borrowed [`OrderStep`], ordered the same way.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum OrderRef<'a> {
    Key(&'a str),
    Index(usize),
}

/// One step of [`At::order`]; an object key and a list index never compete at the same
/// depth, so the order between the two variants does not matter.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum OrderStep {
    Key(Box<str>),
    Index(usize),
}

/// One decoding error as the decoder records it.
#[derive(Clone, Debug)]
struct DecodeError {
    message: String,
    path: FieldPath,
    span: Span,
    /// Position in the sent JSON: Go keeps the first error it meets.
    order: Vec<OrderStep>,
}

#[derive(Default, Debug)]
struct Level {
    saved: Option<DecodeError>,
    fatal: Option<DecodeError>,
}

/// Collects decoding errors with Go's precedence rules; see the module docs.
#[derive(Debug)]
pub struct Decoder {
    levels: Vec<Level>,
    unknown: Vec<(String, FieldPath, Span)>,
    seen_unknown: HashSet<String>,
    /// Prefix of type-error messages (`CustomResourceDefinition in version "v1" cannot
    /// be handled as a CustomResourceDefinition: `), empty for standalone schemas.
    prefix: String,
}

impl Decoder {
    pub fn new(prefix: impl Into<String>) -> Self {
        Decoder {
            levels: vec![Level::default()],
            unknown: Vec::new(),
            seen_unknown: HashSet::new(),
            prefix: prefix.into(),
        }
    }

    fn level(&mut self) -> &mut Level {
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        let last = self.levels.len() - 1;
        &mut self.levels[last]
    }

    /// Enters a subtree decoded by a custom unmarshaler with the lenient decoder.
    pub fn enter_lenient<'a>(&mut self, at: &At<'a>) -> At<'a> {
        self.levels.push(Level::default());
        let mut inner = at.clone();
        if inner.lenient.is_none() {
            inner.lenient = Some(at.go_struct);
        }
        inner
    }

    /// Leaves a lenient subtree: its first error becomes fatal for the enclosing decode.
    pub fn exit_lenient(&mut self) {
        if self.levels.len() <= 1 {
            return;
        }
        if let Some(err) = self.levels.pop().and_then(|l| l.fatal.or(l.saved)) {
            self.fatal(err);
        }
    }

    /// An error that stops Go's decoder: the first one met (in the sent JSON's order)
    /// is the answer, whatever was saved before it.
    fn fatal(&mut self, err: DecodeError) {
        let level = self.level();
        if level.fatal.as_ref().is_none_or(|f| err.order < f.order) {
            level.fatal = Some(err);
        }
    }

    /// An error Go's decoder saves and goes on: the first one met is reported.
    fn save(&mut self, err: DecodeError) {
        let level = self.level();
        if level.saved.as_ref().is_none_or(|f| err.order < f.order) {
            level.saved = Some(err);
        }
    }

    /// Whether an error saved already comes before one at `at`, which would then not be
    /// kept: only the first error met is, and a later one is not worth spelling out.
    fn saved_first(&mut self, at: &At) -> bool {
        self.level()
            .saved
            .as_ref()
            .is_some_and(|first| !at.precedes(&first.order))
    }

    /// A JSON value of the wrong type for a Go field of type `go_type`.
    pub fn type_error(&mut self, at: &At, node: &Node, go_type: &str) {
        let value = json_kind(node, go_type);
        self.type_error_value(at, node.span, &value, go_type);
    }

    fn type_error_value(&mut self, at: &At, span: Span, value: &str, go_type: &str) {
        if self.saved_first(at) {
            return;
        }
        let err = type_error_at(at, span, value, go_type);
        self.save(err);
    }

    /// An error that ends decoding at once (raised by a custom unmarshaler).
    pub fn fatal_message(&mut self, at: &At, span: Span, message: impl Into<String>) {
        self.fatal(DecodeError {
            message: message.into(),
            path: at.path(),
            span,
            order: at.order(),
        });
    }

    /// `metav1.Time`: null, or a string `time.Parse(time.RFC3339, …)` takes (not the
    /// empty string). Its unmarshaler decodes on its own, so a failure ends decoding.
    pub fn time(&mut self, node: &Node, at: &At) {
        match &node.value {
            Value::Null => {}
            Value::String(s) => {
                if let Err(message) = crate::cel::gotime::parse_go_rfc3339(s) {
                    self.fatal_message(at, node.span, message);
                }
            }
            // The unmarshaler's own `json.Unmarshal` into a string fails: a type
            // error (the outer decoder adds the field) that ends decoding too.
            _ => {
                let err = type_error_at(at, node.span, &json_kind(node, "string"), "string");
                self.fatal(err);
            }
        }
    }

    /// A saved (non-fatal) error with a custom message (e.g. base64 errors).
    pub fn saved_message(&mut self, at: &At, span: Span, message: impl Into<String>) {
        if self.saved_first(at) {
            return;
        }
        self.save(DecodeError {
            message: message.into(),
            path: at.path(),
            span,
            order: at.order(),
        });
    }

    /// A key the Go struct does not declare.
    pub fn unknown_field(&mut self, at: &At, key: &str, key_span: Span) {
        if at.is_lenient() {
            return;
        }
        if self.unknown.len() >= 100 {
            return;
        }
        let spelled = at.spelled();
        let strict = if spelled.strict_path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", spelled.strict_path, key)
        };
        if !self.seen_unknown.insert(strict.clone()) {
            return;
        }
        self.unknown
            .push((strict, spelled.path.child(key), key_span));
    }

    /// Whether a type error (or fatal error) was recorded.
    pub fn has_type_error(&self) -> bool {
        self.levels
            .iter()
            .any(|l| l.fatal.is_some() || l.saved.is_some())
    }

    /// The diagnostics the server would report: the decoding error if any, else one per
    /// unknown field.
    pub fn finish(mut self) -> Vec<Diagnostic> {
        while self.levels.len() > 1 {
            self.exit_lenient();
        }
        let root = self.levels.pop().unwrap_or_default();
        if let Some(err) = root.fatal.or(root.saved) {
            let message = format!("{}{}", self.prefix, err.message);
            let d = Diagnostic::error(super::DECODE_TYPE, message)
                .with_field(err.path.to_string())
                .with_detail(err.message)
                .with_span(err.span)
                .with_help(
                    "the API server cannot decode this value into the CRD's Go types; \
                     write the JSON type the field expects",
                );
            return vec![d];
        }
        self.unknown
            .into_iter()
            .map(|(strict, path, span)| {
                let detail = format!("unknown field {}", crate::diag::gofmt::quote(&strict));
                Diagnostic::error(
                    super::UNKNOWN_FIELD,
                    format!("{}strict decoding error: {detail}", self.prefix),
                )
                .with_field(path.to_string())
                .with_detail(detail)
                .with_span(span)
                .with_help(
                    "remove the field or fix its spelling (field names are case-sensitive); \
                     kubectl's default strict field validation rejects unknown fields",
                )
            })
            .collect()
    }
}

/// `json: cannot unmarshal <value> into Go … of type <go_type>` at `at`, as
/// `encoding/json` words an `UnmarshalTypeError` with its struct-field context.
fn type_error_at(at: &At, span: Span, value: &str, go_type: &str) -> DecodeError {
    let owner = at.lenient.unwrap_or(at.go_struct);
    let spelled = at.spelled();
    let message = if owner.is_empty() && spelled.go_stack.is_empty() {
        format!("json: cannot unmarshal {value} into Go value of type {go_type}")
    } else {
        format!(
            "json: cannot unmarshal {value} into Go struct field {owner}.{} of type {go_type}",
            spelled.go_stack
        )
    };
    DecodeError {
        message,
        path: spelled.path,
        span,
        order: at.order(),
    }
}

/// How Go's decoder names the JSON value in a type error. Numbers going into integer
/// types carry their literal (`number 1.5`).
fn json_kind(node: &Node, go_type: &str) -> String {
    match &node.value {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
        Value::Int(i) if is_int_type(go_type) => format!("number {i}"),
        Value::Float(f) if is_int_type(go_type) => {
            format!("number {}", crate::diag::gofmt::json_float(*f))
        }
        Value::Int(_) | Value::Float(_) => "number".into(),
    }
}

fn is_int_type(go_type: &str) -> bool {
    matches!(
        go_type,
        "int"
            | "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
    )
}

/// A scalar with the spans of its key and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<T> {
    pub value: T,
    pub key_span: Span,
    pub span: Span,
}

impl<T> Field<T> {
    pub fn new(value: T, key_span: Span, span: Span) -> Self {
        Field {
            value,
            key_span,
            span,
        }
    }
}

/// Value readers with Go's decoding rules. `null` always decodes to "absent".
impl Decoder {
    pub fn string(&mut self, node: &Node, at: &At, go_type: &str) -> Option<String> {
        match &node.value {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }

    /// [`Decoder::string`], borrowed from the tree.
    pub fn str<'n>(&mut self, node: &'n Node, at: &At, go_type: &str) -> Option<&'n str> {
        match &node.value {
            Value::Null => None,
            Value::String(s) => Some(s),
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }

    pub fn boolean(&mut self, node: &Node, at: &At) -> Option<bool> {
        match &node.value {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            _ => {
                self.type_error(at, node, "bool");
                None
            }
        }
    }

    /// An integer of Go type `go_type` (`int64`, `int32`).
    pub fn int(&mut self, node: &Node, at: &At, go_type: &str) -> Option<i64> {
        let (min, max) = match go_type {
            "int32" => (i32::MIN as i64, i32::MAX as i64),
            _ => (i64::MIN, i64::MAX),
        };
        let value = match &node.value {
            Value::Null => return None,
            Value::Int(i) => Some(*i),
            // A YAML float converts to a JSON number literal; Go parses integral
            // literals (`1000`) but not `1.5` or `1e+21`.
            Value::Float(f) => {
                let lit = crate::diag::gofmt::json_float(*f);
                lit.parse::<i64>().ok()
            }
            _ => {
                self.type_error(at, node, go_type);
                return None;
            }
        };
        match value {
            Some(v) if v >= min && v <= max => Some(v),
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }

    pub fn float(&mut self, node: &Node, at: &At) -> Option<f64> {
        match &node.value {
            Value::Null => None,
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => {
                self.type_error(at, node, "float64");
                None
            }
        }
    }

    /// `[]string` (or a named string-slice type).
    pub fn strings(&mut self, node: &Node, at: &At, go_type: &str) -> Option<Vec<Field<String>>> {
        match &node.value {
            Value::Null => None,
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let at = at.index(i);
                    match &item.value {
                        Value::Null => out.push(Field::new(String::new(), item.span, item.span)),
                        Value::String(s) => out.push(Field::new(s.clone(), item.span, item.span)),
                        _ => self.type_error(&at, item, "string"),
                    }
                }
                Some(out)
            }
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }

    /// `map[string]string`.
    pub fn string_map(
        &mut self,
        node: &Node,
        at: &At,
    ) -> Option<Vec<(Field<String>, Field<String>)>> {
        match &node.value {
            Value::Null => None,
            Value::Object(map) => {
                let mut out = Vec::new();
                for e in &map.entries {
                    let at = at.key(&e.key);
                    match &e.value.value {
                        Value::Null => out.push((
                            Field::new(e.key.clone(), e.key_span, e.key_span),
                            Field::new(String::new(), e.value.span, e.value.span),
                        )),
                        Value::String(s) => out.push((
                            Field::new(e.key.clone(), e.key_span, e.key_span),
                            Field::new(s.clone(), e.key_span, e.value.span),
                        )),
                        _ => self.type_error(&at, &e.value, "string"),
                    }
                }
                Some(out)
            }
            _ => {
                self.type_error(at, node, "map[string]string");
                None
            }
        }
    }

    /// `[]byte`: a base64 string (or a list of bytes).
    pub fn bytes(&mut self, node: &Node, at: &At) -> Option<Vec<u8>> {
        match &node.value {
            Value::Null => None,
            Value::String(s) => match base64_decode(s.as_bytes()) {
                Ok(b) => Some(b),
                Err(at_byte) => {
                    self.saved_message(
                        at,
                        node.span,
                        format!("illegal base64 data at input byte {at_byte}"),
                    );
                    None
                }
            },
            Value::Array(items) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if let Some(b) = self.int(item, &at.index(i), "uint8") {
                        if (0..=255).contains(&b) {
                            out.push(b as u8);
                        } else {
                            self.type_error(&at.index(i), item, "uint8");
                        }
                    }
                }
                Some(out)
            }
            _ => {
                self.type_error(at, node, "[]uint8");
                None
            }
        }
    }

    /// The entries of a JSON object decoded into the Go struct `go_type`, calling
    /// `field` for each declared key and reporting the others as unknown.
    pub fn object<'n>(
        &mut self,
        node: &'n Node,
        at: &At,
        go_type: &str,
        known: &[&str],
    ) -> Option<Vec<&'n crate::source::Entry>> {
        match &node.value {
            Value::Null => None,
            Value::Object(map) => {
                let mut out = Vec::with_capacity(map.entries.len());
                for e in &map.entries {
                    if known.contains(&e.key.as_str()) {
                        out.push(e);
                    } else {
                        self.unknown_field(at, &e.key, e.key_span);
                    }
                }
                Some(out)
            }
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }

    /// A JSON array decoded into the Go slice type `go_type`.
    pub fn array<'n>(&mut self, node: &'n Node, at: &At, go_type: &str) -> Option<&'n [Node]> {
        match &node.value {
            Value::Null => None,
            Value::Array(items) => Some(items),
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }

    /// A JSON object decoded into a Go map type.
    pub fn map<'n>(
        &mut self,
        node: &'n Node,
        at: &At,
        go_type: &str,
    ) -> Option<&'n [crate::source::Entry]> {
        match &node.value {
            Value::Null => None,
            Value::Object(map) => Some(&map.entries),
            _ => {
                self.type_error(at, node, go_type);
                None
            }
        }
    }
}

/// The value of a standard base64 digit.
pub fn base64_digit(c: u8) -> Option<u8> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    })
}

/// Standard base64 with padding, as Go's `encoding/base64.StdEncoding.DecodeString`
/// (which skips `\r` and `\n` and ignores nonzero trailing bits). On error, the offset
/// Go reports (`illegal base64 data at input byte N`): its `decodeQuantum` blames a bad
/// byte where it stands, but an input that ends inside a quantum at the quantum's
/// first byte, missing padding at the end of the input, and anything after the
/// padding at the first byte after it.
pub fn base64_decode(s: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut si = 0;
    let skip_newlines = |mut i: usize| {
        while i < s.len() && matches!(s[i], b'\r' | b'\n') {
            i += 1;
        }
        i
    };
    loop {
        let mut quantum = [0u8; 4];
        let mut len = 0;
        while len < 4 {
            let Some(&c) = s.get(si) else {
                if len == 0 {
                    return Ok(out);
                }
                return Err(si - len);
            };
            si += 1;
            let v = match (base64_digit(c), c) {
                (Some(v), _) => v,
                (None, b'\r' | b'\n') => continue,
                (None, b'=') => {
                    match len {
                        0 | 1 => return Err(si - 1),
                        2 => {
                            // "==" expected: the second `=` after any line breaks.
                            si = skip_newlines(si);
                            match s.get(si) {
                                None => return Err(s.len()),
                                Some(b'=') => si += 1,
                                Some(_) => return Err(si - 1),
                            }
                        }
                        _ => {}
                    }
                    si = skip_newlines(si);
                    if si < s.len() {
                        return Err(si);
                    }
                    break;
                }
                (None, _) => return Err(si - 1),
            };
            quantum[len] = v;
            len += 1;
        }
        let bits = quantum
            .iter()
            .fold(0u32, |acc, &v| (acc << 6) | u32::from(v));
        let bytes = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        out.extend_from_slice(&bytes[..len - 1]);
        if len < 4 {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedes_compares_as_the_built_order_does() {
        let root = At::root();
        let spec = root.field("X", "spec");
        let a = spec.field("X", "a");
        let b = spec.field("X", "b");
        let list = spec.field("X", "l");
        let (first, tenth) = (list.index(1), list.index(10));
        let key = a.key("k");
        let deep = key.index(0);
        let base = FieldPath::root("spec").child("a");
        let standalone = At::at_path(&base, "X");
        let below_base = standalone.field("X", "c");
        let all = [
            &root,
            &spec,
            &a,
            &b,
            &list,
            &first,
            &tenth,
            &key,
            &deep,
            &standalone,
            &below_base,
        ];
        let mut pairs = 0;
        for x in all {
            for y in all {
                assert_eq!(
                    x.precedes(&y.order()),
                    x.order() < y.order(),
                    "{:?} {:?}",
                    x.order(),
                    y.order()
                );
                pairs += 1;
            }
        }
        assert_eq!(pairs, 121);
        assert!(a.precedes(&b.order()) && !b.precedes(&a.order()));
        assert!(first.precedes(&tenth.order()) && spec.precedes(&a.order()));
        assert!(!a.precedes(&a.order()));
    }

    #[test]
    fn at_path_converts_field_paths() {
        let p = FieldPath::root("spec")
            .child("versions")
            .index(0)
            .child("schema")
            .child("openAPIV3Schema")
            .child("properties")
            .key("spec");
        let at = At::at_path(&p, "JSONSchemaProps").spelled();
        assert_eq!(
            at.strict_path,
            "spec.versions[0].schema.openAPIV3Schema.properties.spec"
        );
        assert_eq!(
            at.go_stack,
            "spec.versions.schema.openAPIV3Schema.properties"
        );
    }

    #[test]
    fn base64_like_go() {
        assert_eq!(base64_decode(b"aGk=").unwrap(), b"hi");
        assert_eq!(base64_decode(b"").unwrap(), b"");
        assert_eq!(base64_decode(b"aGVs\nbG8=\n").unwrap(), b"hello");
        assert_eq!(base64_decode(b"YR==").unwrap(), b"a");
        assert_eq!(base64_decode(b"aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        // Offsets as Go 1.23's `base64.StdEncoding.DecodeString` reports them.
        for (input, at) in [
            ("aGk", 0),
            ("a*Gk", 1),
            ("!!", 0),
            ("aGVsbG8", 4),
            ("aGVsbG8=x", 8),
            ("aG=k", 2),
            ("a===", 1),
            ("aGVsbG8gd29ybGQ", 12),
            ("aGVsbG8==", 8),
            ("=", 0),
            ("ab==cd==", 4),
            ("abc=def=", 4),
            ("aGVsbG8gd29ybGQhIQ*=", 18),
            ("YQ", 0),
            ("YQ=", 3),
            ("aGVsbG8gd29ybA==x", 16),
        ] {
            assert_eq!(base64_decode(input.as_bytes()), Err(at), "{input:?}");
        }
    }
}
