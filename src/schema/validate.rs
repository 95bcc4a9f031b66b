//! OpenAPI value validation of custom resources: kube-openapi's `SchemaValidator`
//! (validators, their order, the match counts that pick anyOf/oneOf failures, the
//! messages) and apiextensions' conversion of its results into field errors.
//!
//! The server validates against the full `JSONSchemaProps`, not the structural
//! schema, with formats filtered the way the server filters them and patterns
//! compiled as Go regexps. The structural form keeps everything that validation reads
//! (with one addition: a junctor's `additionalProperties` boolean), so a CRD version's
//! validator follows it: each node is built when a value first reaches it, and the
//! large schemas resources touch a corner of cost only that corner
//! ([`Validator::following`]). A schema without a structural form (the server refuses
//! such a CRD) gets a validator built whole from the schema as written
//! ([`Validator::new_at`]).

use super::property_index::PropertyIndex;
use std::sync::{Arc, OnceLock};

use regex::Regex;

use crate::cel::KubeVersion;
use crate::diag::gofmt;
use crate::diag::{BadValue, ErrorType, FieldError, FieldPath, budget};
use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps};
use crate::source::{Node, Span, Value};

use super::correlate::Correlation;
use super::formats;
use super::structural::{
    Generic, NestedValueValidation, Structural, StructuralOrBool, ValueValidation,
};

/// A field error of the OpenAPI validator and the bytes it is about.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaError {
    pub error: FieldError,
    pub span: Span,
}

/// kube-openapi's validation error codes that apiextensions treats specially.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    InvalidType,
    Required,
    TooLong,
    TooShort,
    Pattern,
    Enum,
    MultipleOf,
    Max,
    Min,
    Unique,
    MaxItems,
    MinItems,
    TooFewProperties,
    TooManyProperties,
    UnallowedProperty,
    MultipleOfMustBePositive,
}

/// One kube-openapi error before conversion.
#[derive(Clone, Debug)]
enum RawError {
    /// An `errors.Validation`: a name (the path), a value, and a message.
    Validation {
        code: Code,
        name: String,
        value: Option<BadValue>,
        /// The limit for TooLong / MaxItems / TooManyProperties.
        valid: Option<i64>,
        /// The allowed values of an enum.
        values: Vec<String>,
        message: String,
        span: Span,
    },
    /// Any other error (composite messages, range-check errors): reported at no path.
    Other { message: String, span: Span },
}

/// go-openapi's `Result.AddErrors` (behind every merge) drops an error whose text is
/// already there: `required: [a, a]` reports `a` once.
fn unique(errors: Vec<RawError>) -> Vec<RawError> {
    let mut seen = std::collections::HashSet::new();
    errors
        .into_iter()
        .filter(|e| {
            let text = match e {
                RawError::Validation { message, .. } | RawError::Other { message, .. } => {
                    message.clone()
                }
            };
            seen.insert(text)
        })
        .collect()
}

#[derive(Default)]
struct VResult {
    errors: Vec<RawError>,
    match_count: usize,
}

impl VResult {
    fn merge(&mut self, other: VResult) {
        self.errors.extend(other.errors);
        self.match_count += other.match_count;
    }

    fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    fn error(e: RawError) -> VResult {
        VResult {
            errors: vec![e],
            match_count: 0,
        }
    }
}

/// A schema node prepared for validation: the server's converted `spec.Schema`.
#[derive(Debug, Default)]
pub struct Validator {
    types: &'static [&'static str],
    /// A type name `types` knows only as "unknown", as written: the server prints
    /// what the schema says (see [`Validator::type_names`]).
    unknown_type_name: Option<Box<str>>,
    nullable: bool,
    /// The format after the server strips unsupported ones.
    format: String,
    /// Value bounds and the pattern, set on few nodes: boxed, so that the many nodes
    /// without them stay small (a CRD's validators live for the whole run).
    bounds: Option<Box<Bounds>>,
    enum_: Vec<Node>,
    /// Built on the first value a long enum checks.
    enum_index: OnceLock<super::enum_index::EnumIndex>,
    required: Vec<String>,
    items: Option<Box<Validator>>,
    /// Junctors and pattern properties, set on few nodes: boxed like `bounds`.
    junctors: Option<Box<Junctors>>,
    properties: Vec<(String, Validator)>,
    /// Lookups by name in `properties` (see [`PropertyIndex`]).
    property_index: PropertyIndex,
    additional_properties: Option<AdditionalProperties>,
    /// kube-openapi's number validator knows the schema's type and format (from
    /// Kubernetes 1.36): bounds that do not fit an `integer` are errors of their own
    /// and compared as floats. Before, every bound was compared natively.
    typed_numbers: bool,
    /// Set on a node built from a structural schema ([`Validator::following`]) that
    /// has children: they are built on first use, from the structural node the walk
    /// passes alongside, instead of `items`, `properties` and `additional_properties`.
    lazy: Option<Box<Lazy>>,
}

/// The children of a [`Validator`] built from a structural schema, made when a value
/// first reaches its node. Resources touch a small part of a large CRD's schema: the
/// rest is never built (a CRD's validators live for the whole run).
#[derive(Debug)]
struct Lazy {
    version: KubeVersion,
    children: OnceLock<Children>,
}

/// The children of a structural node's validator, in the node's order.
#[derive(Debug)]
struct Children {
    items: Option<Box<Validator>>,
    /// Parallel to the structural node's `properties`.
    properties: Vec<Validator>,
    additional_properties: Option<AdditionalProperties>,
}

/// A validator's child and the structural node it is walked with (`None` below a
/// validator built with its children).
type Child<'v> = (&'v Validator, Option<&'v Structural>);

/// What a validator says about properties it does not name.
enum Additional<'v> {
    Allows(bool),
    Schema(Child<'v>),
}

/// The children of a validator node: built with it, or built on first use from the
/// structural node walked alongside.
#[derive(Clone, Copy)]
enum Kids<'v> {
    Built(&'v Validator),
    Following(&'v Children, &'v Structural),
}

impl<'v> Kids<'v> {
    /// The validator of an array's items.
    fn items(self) -> Option<Child<'v>> {
        match self {
            Kids::Built(v) => v.items.as_deref().map(|v| (v, None)),
            Kids::Following(c, s) => Some((c.items.as_deref()?, s.items.as_deref())),
        }
    }

    /// The validator of the property `name`, and its name as the schema writes it.
    fn property(self, name: &str) -> Option<(&'v str, Child<'v>)> {
        match self {
            Kids::Built(v) => v
                .property_index
                .find(&v.properties, name)
                .map(|(k, v)| (k.as_str(), (v, None))),
            Kids::Following(c, s) => {
                let ((name, schema), v) =
                    s.property_index
                        .find_with(&s.properties, &c.properties, name)?;
                Some((name.as_str(), (v, Some(schema))))
            }
        }
    }

    /// What the node says about properties it does not name.
    fn additional(self) -> Option<Additional<'v>> {
        let (additional, s) = match self {
            Kids::Built(v) => (&v.additional_properties, None),
            Kids::Following(c, s) => (&c.additional_properties, Some(s)),
        };
        Some(match additional.as_ref()? {
            AdditionalProperties::Allows(b) => Additional::Allows(*b),
            AdditionalProperties::Schema(v) => {
                let schema = s.and_then(|s| match &s.additional_properties {
                    Some(StructuralOrBool::Structural(a)) => Some(a.as_ref()),
                    _ => None,
                });
                Additional::Schema((v, schema))
            }
        })
    }
}

/// The keywords a validator node reads, from wherever they come: the schema as
/// written, its structural form, or a junctor's nested value validation.
#[derive(Default)]
struct Keywords<'a> {
    type_: Option<&'a str>,
    int_or_string: bool,
    nullable: bool,
    format: Option<&'a str>,
    pattern: Option<&'a str>,
    limits: Limits,
    enum_: &'a [Node],
    required: &'a [String],
}

impl<'a> Keywords<'a> {
    fn of_props(s: &'a SchemaProps) -> Self {
        let rare = s.rare();
        Keywords {
            type_: s.type_.as_deref(),
            int_or_string: s.x_int_or_string,
            nullable: s.nullable,
            format: s.format.as_deref(),
            pattern: s.pattern.as_deref(),
            limits: Limits {
                maximum: rare.maximum,
                exclusive_maximum: s.exclusive_maximum,
                minimum: rare.minimum,
                exclusive_minimum: s.exclusive_minimum,
                max_length: rare.max_length,
                min_length: rare.min_length,
                max_items: rare.max_items,
                min_items: rare.min_items,
                unique_items: s.unique_items,
                multiple_of: rare.multiple_of,
                max_properties: rare.max_properties,
                min_properties: rare.min_properties,
            },
            enum_: s.enum_.as_deref().unwrap_or(&[]),
            required: s.required.as_deref().unwrap_or(&[]),
        }
    }

    /// The keywords of a structural node: its generic part and its value validation
    /// (an empty string is what an absent keyword converts to).
    fn of_parts(
        generic: &'a Generic,
        int_or_string: bool,
        vv: Option<&'a ValueValidation>,
    ) -> Self {
        let text = |t: &'a str| (!t.is_empty()).then_some(t);
        let mut k = Keywords {
            type_: text(&generic.type_),
            int_or_string,
            nullable: generic.nullable,
            ..Keywords::default()
        };
        if let Some(v) = vv {
            k.format = text(&v.format);
            k.pattern = text(&v.pattern);
            k.limits = Limits {
                maximum: v.maximum,
                exclusive_maximum: v.exclusive_maximum,
                minimum: v.minimum,
                exclusive_minimum: v.exclusive_minimum,
                max_length: v.max_length,
                min_length: v.min_length,
                max_items: v.max_items,
                min_items: v.min_items,
                unique_items: v.unique_items,
                multiple_of: v.multiple_of,
                max_properties: v.max_properties,
                min_properties: v.min_properties,
            };
            k.enum_ = &v.enum_;
            k.required = &v.required;
        }
        k
    }
}

/// The subschemas of a [`Validator`] that most schema nodes do not have.
#[derive(Debug, Default)]
struct Junctors {
    all_of: Vec<Validator>,
    one_of: Vec<Validator>,
    any_of: Vec<Validator>,
    not: Option<Box<Validator>>,
    pattern_properties: Vec<(String, Option<Arc<Regex>>, Validator)>,
}

static NO_JUNCTORS: Junctors = Junctors {
    all_of: Vec::new(),
    one_of: Vec::new(),
    any_of: Vec::new(),
    not: None,
    pattern_properties: Vec::new(),
};

impl Junctors {
    fn is_empty(&self) -> bool {
        self.all_of.is_empty()
            && self.one_of.is_empty()
            && self.any_of.is_empty()
            && self.not.is_none()
            && self.pattern_properties.is_empty()
    }
}

/// The numeric and size limits of a schema node, and `uniqueItems`.
#[derive(Clone, Copy, Debug, Default)]
struct Limits {
    maximum: Option<f64>,
    exclusive_maximum: bool,
    minimum: Option<f64>,
    exclusive_minimum: bool,
    max_length: Option<i64>,
    min_length: Option<i64>,
    max_items: Option<i64>,
    min_items: Option<i64>,
    unique_items: bool,
    multiple_of: Option<f64>,
    max_properties: Option<i64>,
    min_properties: Option<i64>,
}

impl Limits {
    const NONE: Limits = Limits {
        maximum: None,
        exclusive_maximum: false,
        minimum: None,
        exclusive_minimum: false,
        max_length: None,
        min_length: None,
        max_items: None,
        min_items: None,
        unique_items: false,
        multiple_of: None,
        max_properties: None,
        min_properties: None,
    };

    fn is_empty(&self) -> bool {
        self.maximum.is_none()
            && !self.exclusive_maximum
            && self.minimum.is_none()
            && !self.exclusive_minimum
            && self.max_length.is_none()
            && self.min_length.is_none()
            && self.max_items.is_none()
            && self.min_items.is_none()
            && !self.unique_items
            && self.multiple_of.is_none()
            && self.max_properties.is_none()
            && self.min_properties.is_none()
    }
}

/// The value validations of a [`Validator`] that most schema nodes do not have: its
/// limits (read through `Deref`) and its compiled pattern.
#[derive(Debug, Default)]
struct Bounds {
    limits: Limits,
    pattern: Option<(String, Result<Arc<Regex>, super::regex::RegexError>)>,
}

static NO_BOUNDS: Bounds = Bounds {
    limits: Limits::NONE,
    pattern: None,
};

impl Bounds {
    fn is_empty(&self) -> bool {
        self.limits.is_empty() && self.pattern.is_none()
    }
}

impl std::ops::Deref for Bounds {
    type Target = Limits;

    fn deref(&self) -> &Limits {
        &self.limits
    }
}

#[derive(Debug)]
enum AdditionalProperties {
    Allows(bool),
    Schema(Box<Validator>),
}

const MAX_DEPTH: usize = 1000;

/// Which formats a validator enforces.
#[derive(Clone, Copy)]
enum Formats {
    /// Those the server keeps for custom resources
    /// (`StripUnsupportedFormatsPostProcessorForVersion`).
    Stripped,
    /// Every written one (the validator of `default` values).
    AsWritten,
}

impl Validator {
    /// Prepares the validator for an `openAPIV3Schema`, as the newest supported
    /// server validates.
    pub fn new(schema: &SchemaProps) -> Validator {
        Self::new_at(schema, KubeVersion::NEWEST)
    }

    /// [`Validator::new`] as a server of `version` validates.
    pub fn new_at(schema: &SchemaProps, version: KubeVersion) -> Validator {
        Self::build(schema, version, Formats::Stripped, 0)
    }

    /// The validator the server of `version` checks a `default` value with: built from
    /// the structural schema as it is (`NewSchemaValidatorFromOpenAPI`), without the
    /// format stripping of custom-resource validation, so every written format counts
    /// (`type: object` with `format: duration` skips the type check of a string and
    /// applies the format; an integer there fails as `must be of type duration`), and
    /// without `x-kubernetes-int-or-string` (outside `patternProperties`, as the server
    /// converts it for defaults: with it, a default's type would not be checked).
    /// Only the nodes the value reaches are built; the others are empty and reached by
    /// nothing. (A default at each level of a chain 400 deep over 16,000 properties
    /// built the whole schema below each: 6.4 million nodes for a 2 MB CRD.)
    pub fn new_for_default_value(
        schema: &SchemaProps,
        value: &Node,
        version: KubeVersion,
    ) -> Validator {
        Self::build_for_values(schema, &[value], version, 0)
    }

    /// [`Validator::build`] of the nodes `values` (at `s`) reach, without
    /// `x-kubernetes-int-or-string`, every format kept.
    fn build_for_values(
        s: &SchemaProps,
        values: &[&Node],
        version: KubeVersion,
        depth: usize,
    ) -> Validator {
        if depth > MAX_DEPTH {
            return Validator::default();
        }
        let build = |c: &SchemaProps, reached: &[&Node]| {
            if reached.is_empty() {
                Validator::default()
            } else {
                Self::build_for_values(c, reached, version, depth + 1)
            }
        };
        let mut keywords = Keywords::of_props(s);
        keywords.int_or_string = false;
        let mut v = Self::node(&keywords, version, Formats::AsWritten);
        let mut elements = Vec::new();
        let mut entries = Vec::new();
        // Property values by name, over all values (a mapping's lookup is a scan).
        let mut by_key: std::collections::HashMap<&str, Vec<&Node>> =
            std::collections::HashMap::new();
        for value in values {
            match &value.value {
                Value::Array(items) => elements.extend(items),
                Value::Object(map) => {
                    for (key, child) in map.iter() {
                        entries.push(child);
                        by_key.entry(key).or_default().push(child);
                    }
                }
                _ => {}
            }
        }
        v.items = match &s.items {
            Some(SchemaOrArray::Schema(item)) => Some(Box::new(build(item, &elements))),
            _ => None,
        };
        v.additional_properties = match &s.additional_properties {
            Some(SchemaOrBool::Schema(ap)) => {
                Some(AdditionalProperties::Schema(Box::new(build(ap, &entries))))
            }
            Some(SchemaOrBool::Bool(b, _)) => Some(AdditionalProperties::Allows(*b)),
            None => None,
        };
        let rare = s.rare();
        let junctors = Junctors {
            all_of: rare
                .all_of
                .iter()
                .flatten()
                .map(|c| build(c, values))
                .collect(),
            one_of: rare
                .one_of
                .iter()
                .flatten()
                .map(|c| build(c, values))
                .collect(),
            any_of: rare
                .any_of
                .iter()
                .flatten()
                .map(|c| build(c, values))
                .collect(),
            not: rare.not.as_ref().map(|n| Box::new(build(n, values))),
            // Kept whole, int-or-string included, as the server leaves them.
            pattern_properties: rare
                .pattern_properties
                .iter()
                .flatten()
                .map(|(k, p)| {
                    let compiled = super::regex::compile_go(k).ok();
                    (
                        k.clone(),
                        compiled,
                        Self::build(p, version, Formats::AsWritten, depth + 1),
                    )
                })
                .collect(),
        };
        v.junctors = (!junctors.is_empty()).then(|| Box::new(junctors));
        v.properties = s
            .properties
            .iter()
            .flatten()
            .map(|(k, p)| {
                let reached = by_key.get(k.as_str()).map_or(&[][..], Vec::as_slice);
                (k.clone(), build(p, reached))
            })
            .collect();
        v.property_index = PropertyIndex::new(&v.properties);
        v
    }

    fn bounds(&self) -> &Bounds {
        self.bounds.as_deref().unwrap_or(&NO_BOUNDS)
    }

    fn junctors(&self) -> &Junctors {
        self.junctors.as_deref().unwrap_or(&NO_JUNCTORS)
    }

    /// The types as the server prints them in messages.
    fn type_names(&self) -> &str {
        match (&self.unknown_type_name, self.types) {
            (Some(name), _) => name,
            (None, []) => "",
            (None, [single]) => single,
            (None, _) => "integer,string",
        }
    }

    fn build(s: &SchemaProps, version: KubeVersion, formats: Formats, depth: usize) -> Validator {
        if depth > MAX_DEPTH {
            return Validator::default();
        }
        let build = |c: &SchemaProps| Self::build(c, version, formats, depth + 1);
        let mut v = Self::node(&Keywords::of_props(s), version, formats);
        v.items = match &s.items {
            Some(SchemaOrArray::Schema(item)) => Some(Box::new(build(item))),
            _ => None,
        };
        v.additional_properties = match &s.additional_properties {
            Some(SchemaOrBool::Schema(ap)) => {
                Some(AdditionalProperties::Schema(Box::new(build(ap))))
            }
            Some(SchemaOrBool::Bool(b, _)) => Some(AdditionalProperties::Allows(*b)),
            None => None,
        };
        let junctors = Junctors {
            all_of: s.rare().all_of.iter().flatten().map(build).collect(),
            one_of: s.rare().one_of.iter().flatten().map(build).collect(),
            any_of: s.rare().any_of.iter().flatten().map(build).collect(),
            not: s.rare().not.as_ref().map(|n| Box::new(build(n))),
            pattern_properties: s
                .rare()
                .pattern_properties
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), super::regex::compile_go(k).ok(), build(v)))
                .collect(),
        };
        v.junctors = (!junctors.is_empty()).then(|| Box::new(junctors));
        v.properties = s
            .properties
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), build(v)))
            .collect();
        v.property_index = PropertyIndex::new(&v.properties);
        v
    }

    /// A validator that follows `schema`, the structural form of the schema it would be
    /// built from ([`Validator::new_at`]), which keeps everything validation reads:
    /// nodes are built when a value reaches them, and the walk passes `schema`
    /// alongside ([`Validator::validate_following`]).
    pub fn following(schema: &Structural, version: KubeVersion) -> Validator {
        let mut v = Self::node(
            &Keywords::of_parts(
                &schema.generic,
                schema.extensions.x_int_or_string,
                schema.value_validation.as_deref(),
            ),
            version,
            Formats::Stripped,
        );
        v.junctors = schema
            .value_validation
            .as_deref()
            .and_then(|vv| Self::junctors_of(vv, version));
        let has_children = schema.items.is_some()
            || !schema.properties.is_empty()
            || schema.additional_properties.is_some();
        v.lazy = has_children.then(|| {
            Box::new(Lazy {
                version,
                children: OnceLock::new(),
            })
        });
        v
    }

    /// The validator of a junctor's subschema (built whole: junctors are few).
    fn nested(n: &NestedValueValidation, version: KubeVersion) -> Validator {
        let mut v = Self::node(
            &Keywords::of_parts(
                &n.forbidden_generics,
                n.forbidden_extensions.x_int_or_string,
                Some(&n.value_validation),
            ),
            version,
            Formats::Stripped,
        );
        v.junctors = Self::junctors_of(&n.value_validation, version);
        v.items = n
            .items
            .as_deref()
            .map(|i| Box::new(Self::nested(i, version)));
        v.additional_properties = match (n.additional_properties_bool, &n.additional_properties) {
            (Some(allows), _) => Some(AdditionalProperties::Allows(allows)),
            (None, Some(a)) => Some(AdditionalProperties::Schema(Box::new(Self::nested(
                a, version,
            )))),
            (None, None) => None,
        };
        v.properties = n
            .properties
            .iter()
            .map(|(k, p)| (k.clone(), Self::nested(p, version)))
            .collect();
        v.property_index = PropertyIndex::new(&v.properties);
        v
    }

    fn junctors_of(vv: &ValueValidation, version: KubeVersion) -> Option<Box<Junctors>> {
        let nested = |list: &[NestedValueValidation]| {
            list.iter().map(|n| Self::nested(n, version)).collect()
        };
        let junctors = Junctors {
            all_of: nested(&vv.all_of),
            one_of: nested(&vv.one_of),
            any_of: nested(&vv.any_of),
            not: vv
                .not
                .as_deref()
                .map(|n| Box::new(Self::nested(n, version))),
            pattern_properties: Vec::new(),
        };
        (!junctors.is_empty()).then(|| Box::new(junctors))
    }

    /// A node's own checks, without children.
    fn node(k: &Keywords, version: KubeVersion, formats: Formats) -> Validator {
        let types: &'static [&'static str] = match k.type_ {
            _ if k.int_or_string => &["integer", "string"],
            Some("") | None => &[],
            Some(t) => static_type(t),
        };
        let unknown_type_name = match (types, k.type_) {
            (["unknown"], Some(written)) => Some(written.into()),
            _ => None,
        };
        let single_type = if types.len() == 1 { types[0] } else { "" };
        let format = k
            .format
            .and_then(|f| match formats {
                Formats::Stripped => formats::effective_format(single_type, f, version),
                Formats::AsWritten => Some(f),
            })
            .unwrap_or("")
            .to_string();
        let pattern = k
            .pattern
            .filter(|p| !p.is_empty())
            .map(|p| (p.to_string(), super::regex::compile_go(p)));
        let bounds = Bounds {
            limits: k.limits,
            pattern,
        };
        Validator {
            types,
            unknown_type_name,
            nullable: k.nullable,
            format,
            bounds: (!bounds.is_empty()).then(|| Box::new(bounds)),
            enum_: k.enum_.to_vec(),
            required: k.required.to_vec(),
            typed_numbers: version >= KubeVersion::new(1, 36),
            ..Validator::default()
        }
    }

    /// The children of a node built by [`Validator::following`], walked with `s`.
    fn children<'v>(lazy: &'v Lazy, s: &Structural) -> &'v Children {
        lazy.children.get_or_init(|| Children {
            items: s
                .items
                .as_deref()
                .map(|i| Box::new(Self::following(i, lazy.version))),
            properties: s
                .properties
                .iter()
                .map(|(_, p)| Self::following(p, lazy.version))
                .collect(),
            additional_properties: match &s.additional_properties {
                Some(StructuralOrBool::Structural(a)) => Some(AdditionalProperties::Schema(
                    Box::new(Self::following(a, lazy.version)),
                )),
                Some(StructuralOrBool::Bool(b)) => Some(AdditionalProperties::Allows(*b)),
                None => None,
            },
        })
    }

    /// The node's children, for one value (a lazily built node's are looked up once).
    fn kids<'v>(&'v self, s: Option<&'v Structural>) -> Kids<'v> {
        match (&self.lazy, s) {
            (Some(lazy), Some(s)) => Kids::Following(Self::children(lazy, s), s),
            _ => Kids::Built(self),
        }
    }

    /// Validates a whole object (the root path is empty); returns the server's field
    /// errors in the server's order, each with the span of the offending value (for a
    /// missing required field: the key of the object that lacks it).
    pub fn validate(&self, root: &Node) -> Vec<SchemaError> {
        unique(self.validate_at(None, root, "", root.span, None).errors)
            .into_iter()
            .map(to_field_error)
            .collect()
    }

    /// [`Validator::validate`] of a validator built from `schema`'s schema, by
    /// [`Validator::following`] it or not.
    pub fn validate_following(&self, root: &Node, schema: &Structural) -> Vec<SchemaError> {
        unique(
            self.validate_at(Some(schema), root, "", root.span, None)
                .errors,
        )
        .into_iter()
        .map(to_field_error)
        .collect()
    }

    /// Validates an update (apiextensions' ratcheting `ValidateUpdate`): an error under
    /// a value that can be correlated with the old object and is unchanged is dropped.
    pub fn validate_update(
        &self,
        root: &Node,
        old: &Node,
        schema: &Structural,
    ) -> Vec<SchemaError> {
        let corr = Correlation { old, schema };
        // Both objects are borrowed unchanged for the whole walk.
        let _lookups = super::correlate::key_lookups();
        unique(
            self.validate_child(Some(schema), root, "", root.span, Some(corr))
                .errors,
        )
        .into_iter()
        .map(to_field_error)
        .collect()
    }

    /// A property, item or root value: validated, then its errors ratcheted away when
    /// it equals its correlated old value.
    fn validate_child(
        &self,
        s: Option<&Structural>,
        data: &Node,
        path: &str,
        key_span: Span,
        corr: Option<Correlation<'_>>,
    ) -> VResult {
        let r = self.validate_at(s, data, path, key_span, corr);
        if !r.is_valid() && corr.is_some_and(|c| c.unchanged(data, 0)) {
            return VResult {
                errors: Vec::new(),
                match_count: r.match_count,
            };
        }
        r
    }

    /// `SchemaValidator.Validate`; `s` is the structural node of a validator built
    /// by [`Validator::following`].
    fn validate_at(
        &self,
        s: Option<&Structural>,
        data: &Node,
        path: &str,
        key_span: Span,
        corr: Option<Correlation<'_>>,
    ) -> VResult {
        let mut result = VResult::default();
        // The object's findings passed the limit: the caller says checking stopped.
        if budget::exhausted() {
            return result;
        }
        if data.is_null() {
            result.merge(self.validate_type(data, path));
            result.merge(self.validate_enum(data, path));
            return result;
        }
        let kind = data.json_type();
        let is_string = matches!(data.value, Value::String(_));
        let is_number = matches!(data.value, Value::Int(_) | Value::Float(_));
        if !self.types.is_empty() || !self.format.is_empty() {
            result.merge(self.validate_type(data, path));
            result.match_count += 1;
        }
        result.merge(self.validate_junctors(data, path, key_span, corr));
        result.match_count += 1;
        if is_string {
            result.merge(self.validate_string(data, path));
            result.match_count += 1;
            if formats::is_string_format(&self.format) {
                result.merge(self.validate_format(data, path));
                result.match_count += 1;
            }
        }
        if is_number {
            result.merge(self.validate_number(data, path));
            result.match_count += 1;
        }
        if kind == "array" {
            result.merge(self.validate_slice(s, data, path, corr));
            result.match_count += 1;
        }
        result.merge(self.validate_enum(data, path));
        result.match_count += 1;
        if kind == "object" {
            result.merge(self.validate_object(s, data, path, key_span, corr));
            result.match_count += 1;
        }
        result.match_count += 1;
        result
    }

    fn validate_type(&self, data: &Node, path: &str) -> VResult {
        let ok = VResult {
            errors: Vec::new(),
            match_count: 1,
        };
        let contains = |t: &str| self.types.contains(&t);
        if data.is_null() {
            if !self.types.is_empty() && !contains("null") && !self.nullable {
                return VResult::error(invalid_type(path, self.type_names(), "null", data.span));
            }
            return ok;
        }
        let (sch_type, format) = match &data.value {
            Value::Bool(_) => ("boolean", ""),
            Value::String(_) => ("string", ""),
            Value::Int(_) => ("integer", "int64"),
            Value::Float(_) => ("number", "float64"),
            Value::Array(_) => ("array", ""),
            _ => ("object", ""),
        };
        let is_float_int = match data.value {
            Value::Float(f) => sch_type == "number" && is_json_integer(f) && contains("integer"),
            _ => false,
        };
        let is_int_float = sch_type == "integer" && contains("number");
        let is_string_or_slice = matches!(data.value, Value::String(_) | Value::Array(_));
        let format_matches =
            contains(sch_type) || format == self.format || is_float_int || is_int_float;
        if !(is_string_or_slice || self.format.is_empty() || format_matches) {
            return VResult::error(invalid_type(path, &self.format, format, data.span));
        }
        let numeric = contains("number") || contains("integer");
        if !(numeric || self.format.is_empty()) && is_string_or_slice {
            return ok;
        }
        if !(contains(sch_type) || is_float_int || is_int_float) {
            return VResult::error(invalid_type(path, self.type_names(), sch_type, data.span));
        }
        ok
    }

    /// allOf / anyOf / oneOf / not.
    fn validate_junctors(
        &self,
        data: &Node,
        path: &str,
        key_span: Span,
        corr: Option<Correlation<'_>>,
    ) -> VResult {
        let mut main = VResult::default();
        let junctors = self.junctors();
        if !junctors.any_of.is_empty() {
            let mut best: Option<VResult> = None;
            let mut first_success: Option<VResult> = None;
            for sub in &junctors.any_of {
                let r = sub.validate_at(None, data, path, key_span, corr);
                if r.is_valid() {
                    best = None;
                    first_success = Some(r);
                    break;
                }
                if best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                    best = Some(r);
                }
            }
            if first_success.is_none() {
                main.errors.push(other(
                    format!(
                        "{} must validate at least one schema (anyOf)",
                        gofmt::quote(path)
                    ),
                    data.span,
                ));
            }
            if let Some(b) = best {
                main.merge(b);
            } else if let Some(s) = first_success {
                main.merge(s);
            }
        }
        if !junctors.one_of.is_empty() {
            let mut best: Option<VResult> = None;
            let mut first_success: Option<VResult> = None;
            let mut validated = 0;
            for sub in &junctors.one_of {
                let r = sub.validate_at(None, data, path, key_span, corr);
                if r.is_valid() {
                    validated += 1;
                    best = None;
                    if first_success.is_none() {
                        first_success = Some(r);
                    }
                    continue;
                }
                if validated == 0 && best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                    best = Some(r);
                }
            }
            if validated != 1 {
                let additional = if validated == 0 {
                    "Found none valid".to_string()
                } else {
                    format!("Found {validated} valid alternatives")
                };
                main.errors.push(other(
                    format!(
                        "{} must validate one and only one schema (oneOf). {additional}",
                        gofmt::quote(path)
                    ),
                    data.span,
                ));
                if let Some(b) = best {
                    main.merge(b);
                }
            } else if let Some(s) = first_success {
                main.merge(s);
            }
        }
        if !junctors.all_of.is_empty() {
            let mut validated = 0;
            for sub in &junctors.all_of {
                let r = sub.validate_at(None, data, path, key_span, corr);
                if r.is_valid() {
                    validated += 1;
                }
                main.merge(r);
            }
            if validated != junctors.all_of.len() {
                let additional = if validated == 0 {
                    ". None validated"
                } else {
                    ""
                };
                main.errors.push(other(
                    format!(
                        "{} must validate all the schemas (allOf){additional}",
                        gofmt::quote(path)
                    ),
                    data.span,
                ));
            }
        }
        if let Some(not) = &junctors.not
            && not.validate_at(None, data, path, key_span, corr).is_valid()
        {
            main.errors.push(other(
                format!("{} must not validate the schema (not)", gofmt::quote(path)),
                data.span,
            ));
        }
        main.match_count += 1;
        main
    }

    fn validate_string(&self, data: &Node, path: &str) -> VResult {
        let Value::String(s) = &data.value else {
            return VResult::default();
        };
        let runes = s.chars().count() as i64;
        if let Some(max) = self.bounds().max_length
            && runes > max
        {
            return VResult::error(
                validation(
                    Code::TooLong,
                    path,
                    Some(BadValue::Str(s.clone())),
                    format!("{path} in body should be at most {max} chars long"),
                    data.span,
                )
                .with_valid(max),
            );
        }
        if let Some(min) = self.bounds().min_length
            && runes < min
        {
            return VResult::error(validation(
                Code::TooShort,
                path,
                Some(BadValue::Str(s.clone())),
                format!("{path} in body should be at least {min} chars long"),
                data.span,
            ));
        }
        if let Some((pattern, compiled)) = &self.bounds().pattern {
            let message = match compiled {
                Ok(re) if re.is_match(s) => return VResult::default(),
                Ok(_) => format!("{path} in body should match '{pattern}'"),
                // Valid for Go but too large to match here: the CRD's
                // schema-pattern-not-evaluated warning says so; the value passes.
                Err(super::regex::RegexError::TooLargeToMatch) => return VResult::default(),
                Err(e) => {
                    format!("{path} in body should match '{pattern}, but pattern is invalid: {e}'")
                }
            };
            return VResult::error(validation(
                Code::Pattern,
                path,
                Some(BadValue::Str(s.clone())),
                message,
                data.span,
            ));
        }
        VResult::default()
    }

    fn validate_format(&self, data: &Node, path: &str) -> VResult {
        let Value::String(s) = &data.value else {
            return VResult::default();
        };
        if formats::validates(&self.format, s) {
            return VResult::default();
        }
        VResult::error(validation(
            Code::InvalidType,
            path,
            Some(BadValue::Str(s.clone())),
            format!(
                "{path} in body must be of type {}: {}",
                self.format,
                gofmt::quote(s)
            ),
            data.span,
        ))
    }

    fn validate_number(&self, data: &Node, path: &str) -> VResult {
        let mut res = VResult::default();
        let (type_name, format) = self.number_type_and_format();
        let value = NumberValue::of(&data.value);
        let as_float = value.as_f64();
        let span = data.span;
        let bad = BadValue::from(&data.value);
        if let Some(e) = range_error(value, type_name, format, "Checked", path) {
            res.errors.push(other(e, span));
        }
        let mut multiple = VResult::default();
        if let Some(factor) = self.bounds().multiple_of {
            if let Some(e) = range_error(
                NumberValue::Float(factor),
                type_name,
                format,
                "MultipleOf",
                path,
            ) {
                multiple.errors.push(other(e, span));
                multiple
                    .errors
                    .extend(multiple_of_float(path, as_float, factor, &bad, span));
            } else {
                let e = match value {
                    NumberValue::Int(i) => {
                        multiple_of_int(path, i, go_float_to_int(factor), &bad, span)
                    }
                    NumberValue::Float(f) => multiple_of_float(path, f, factor, &bad, span),
                };
                multiple.errors.extend(e);
            }
        }
        let mut minimum = VResult::default();
        if let Some(min) = self.bounds().minimum {
            let excl = self.bounds().exclusive_minimum;
            if let Some(e) = range_error(
                NumberValue::Float(min),
                type_name,
                format,
                "Minimum boundary",
                path,
            ) {
                minimum.errors.push(other(e, span));
                minimum
                    .errors
                    .extend(min_float(path, as_float, min, excl, &bad, span));
            } else {
                minimum.errors.extend(match value {
                    NumberValue::Int(i) => {
                        // Go's int64(min): out of range is MinInt64, not a saturation.
                        let m = go_float_to_int(min);
                        let fails = if excl { i <= m } else { i < m };
                        fails
                            .then(|| bound_error(Code::Min, path, &m.to_string(), excl, &bad, span))
                    }
                    NumberValue::Float(f) => min_float(path, f, min, excl, &bad, span),
                });
            }
        }
        let mut maximum = VResult::default();
        if let Some(max) = self.bounds().maximum {
            let excl = self.bounds().exclusive_maximum;
            if let Some(e) = range_error(
                NumberValue::Float(max),
                type_name,
                format,
                "Maximum boundary",
                path,
            ) {
                maximum.errors.push(other(e, span));
                maximum
                    .errors
                    .extend(max_float(path, as_float, max, excl, &bad, span));
            } else {
                maximum.errors.extend(match value {
                    NumberValue::Int(i) => {
                        let m = go_float_to_int(max);
                        let fails = if excl { i >= m } else { i > m };
                        fails
                            .then(|| bound_error(Code::Max, path, &m.to_string(), excl, &bad, span))
                    }
                    NumberValue::Float(f) => max_float(path, f, max, excl, &bad, span),
                });
            }
        }
        res.merge(multiple);
        res.merge(minimum);
        res.merge(maximum);
        res.match_count += 1;
        res
    }

    /// The type and format the number validator enforces ranges for: only with a
    /// single `integer` (int32/int64) or `number` (float/double) type.
    fn number_type_and_format(&self) -> (&'static str, &str) {
        if !self.typed_numbers || self.types.len() != 1 {
            return ("", "");
        }
        match self.types[0] {
            "integer" => (
                "integer",
                if self.format == "int32" || self.format == "int64" {
                    self.format.as_str()
                } else {
                    ""
                },
            ),
            "number" => (
                "number",
                if self.format == "float" || self.format == "double" {
                    self.format.as_str()
                } else {
                    ""
                },
            ),
            _ => ("", ""),
        }
    }

    fn validate_slice(
        &self,
        s: Option<&Structural>,
        data: &Node,
        path: &str,
        corr: Option<Correlation<'_>>,
    ) -> VResult {
        let Some(items) = data.as_array() else {
            return VResult::default();
        };
        let mut result = VResult::default();
        if let Some((item_schema, item_s)) = self.kids(s).items() {
            let mut item_path = String::with_capacity(path.len() + 8);
            let correlations = corr.and_then(|c| c.items());
            for (i, item) in items.iter().enumerate() {
                let child = correlations.as_ref().and_then(|c| c.get(item));
                item_path.clear();
                item_path.push_str(path);
                crate::diag::path::push_index(&mut item_path, i);
                result
                    .merge(item_schema.validate_child(item_s, item, &item_path, item.span, child));
            }
        }
        let size = items.len() as i64;
        if let Some(min) = self.bounds().min_items
            && size < min
        {
            result.errors.push(validation(
                Code::MinItems,
                path,
                Some(BadValue::Int(size)),
                format!("{path} in body should have at least {min} items"),
                data.span,
            ));
        }
        if let Some(max) = self.bounds().max_items
            && size > max
        {
            result.errors.push(
                validation(
                    Code::MaxItems,
                    path,
                    Some(BadValue::Int(size)),
                    format!("{path} in body should have at most {max} items"),
                    data.span,
                )
                .with_valid(max),
            );
        }
        if self.bounds().unique_items && super::enum_index::has_deep_duplicate(items) {
            result.errors.push(validation(
                Code::Unique,
                path,
                None,
                format!("{path} in body shouldn't contain duplicates"),
                data.span,
            ));
        }
        result.match_count += 1;
        result
    }

    fn validate_enum(&self, data: &Node, path: &str) -> VResult {
        if self.enum_.is_empty() {
            return VResult::default();
        }
        let member = if self.enum_.len() >= super::enum_index::INDEXED_FROM {
            self.enum_index
                .get_or_init(|| super::enum_index::EnumIndex::new(&self.enum_))
                .contains(&self.enum_, &data.value)
        } else {
            self.enum_
                .iter()
                .any(|e| enum_matches(&data.value, &e.value))
        };
        if !data.is_null() && member {
            return VResult::default();
        }
        let values = self
            .enum_
            .iter()
            .map(|e| match &e.value {
                Value::String(s) => s.clone(),
                other => gofmt::json_marshal(&other.to_json()),
            })
            .collect();
        let listed: Vec<String> = self.enum_.iter().map(|e| go_v(&e.value)).collect();
        VResult::error(
            RawError::Validation {
                code: Code::Enum,
                name: path.to_string(),
                value: Some(BadValue::from(&data.value)),
                valid: None,
                values,
                message: format!("{path} in body should be one of [{}]", listed.join(" ")),
                span: data.span,
            }
            .charged(),
        )
    }

    fn validate_object(
        &self,
        s: Option<&Structural>,
        data: &Node,
        path: &str,
        key_span: Span,
        corr: Option<Correlation<'_>>,
    ) -> VResult {
        // The old value of a child, unless it is the root's apiVersion or kind.
        let child_corr = |k: &str| {
            if path.is_empty() && (k == "kind" || k == "apiVersion") {
                return None;
            }
            corr.and_then(|c| c.key(data, k))
        };
        let Some(map) = data.as_object() else {
            return VResult::default();
        };
        let mut res = VResult::default();
        let num_keys = map.len() as i64;
        if let Some(min) = self.bounds().min_properties
            && num_keys < min
        {
            res.errors.push(validation(
                Code::TooFewProperties,
                path,
                Some(BadValue::Int(num_keys)),
                format!("{path} in body should have at least {min} properties"),
                data.span,
            ));
        }
        if let Some(max) = self.bounds().max_properties
            && num_keys > max
        {
            res.errors.push(
                validation(
                    Code::TooManyProperties,
                    path,
                    Some(BadValue::Int(num_keys)),
                    format!("{path} in body should have at most {max} properties"),
                    data.span,
                )
                .with_valid(max),
            );
        }
        let kids = self.kids(s);
        let is_property = |k: &str| kids.property(k).is_some();
        match kids.additional() {
            Some(Additional::Allows(false)) => {
                for entry in &map.entries {
                    let k = entry.key.as_str();
                    let pattern_match = self
                        .junctors()
                        .pattern_properties
                        .iter()
                        .any(|(_, re, _)| re.as_ref().is_some_and(|re| re.is_match(k)));
                    if !is_property(k) && !pattern_match {
                        res.errors.push(validation(
                            Code::UnallowedProperty,
                            path,
                            Some(BadValue::Str(k.to_string())),
                            format!("{path}.{k} in body is a forbidden property"),
                            entry.key_span,
                        ));
                    }
                }
            }
            ap => {
                let mut child = String::new();
                for entry in &map.entries {
                    let k = entry.key.as_str();
                    let matched = self.validate_pattern_properties(entry, path, &mut res);
                    if !is_property(k)
                        && !matched
                        && let Some(Additional::Schema((schema, schema_s))) = ap
                    {
                        child.clear();
                        child.push_str(path);
                        child.push('.');
                        child.push_str(k);
                        res.merge(schema.validate_child(
                            schema_s,
                            &entry.value,
                            &child,
                            entry.key_span,
                            child_corr(k),
                        ));
                    }
                }
            }
        }
        // Properties in document order (the server walks a Go map: any order).
        // One buffer for the children's paths: this loop runs for every object of
        // every resource.
        let mut child = String::new();
        for entry in &map.entries {
            if let Some((name, (schema, schema_s))) = kids.property(&entry.key) {
                child.clear();
                if !path.is_empty() {
                    child.push_str(path);
                    child.push('.');
                }
                child.push_str(name);
                res.merge(schema.validate_child(
                    schema_s,
                    &entry.value,
                    &child,
                    entry.key_span,
                    child_corr(name),
                ));
            }
        }
        // A set of the object's keys when both lists are long (a scan per required name
        // is quadratic).
        let keys: Option<std::collections::HashSet<&str>> = (self.required.len()
            > PropertyIndex::MIN_LEN
            && map.entries.len() > PropertyIndex::MIN_LEN)
            .then(|| map.entries.iter().map(|e| e.key.as_str()).collect());
        for k in &self.required {
            let present = match &keys {
                Some(keys) => keys.contains(k.as_str()),
                None => map.contains_key(k),
            };
            if !present {
                let name = format!("{path}.{k}");
                res.errors.push(
                    RawError::Validation {
                        code: Code::Required,
                        message: format!("{name} in body is required"),
                        name,
                        value: None,
                        valid: None,
                        values: Vec::new(),
                        span: key_span,
                    }
                    .charged(),
                );
            }
        }
        for entry in &map.entries {
            if is_property(&entry.key) {
                continue;
            }
            let mut scratch = VResult::default();
            if self.validate_pattern_properties(entry, path, &mut scratch) {
                for (_, re, schema) in &self.junctors().pattern_properties {
                    if re.as_ref().is_some_and(|re| re.is_match(&entry.key)) {
                        res.merge(schema.validate_at(
                            None,
                            &entry.value,
                            &format!("{path}.{}", entry.key),
                            entry.key_span,
                            None,
                        ));
                    }
                }
            }
        }
        res
    }

    /// Validates `entry` against every matching pattern property; returns whether
    /// any matched.
    fn validate_pattern_properties(
        &self,
        entry: &crate::source::Entry,
        path: &str,
        res: &mut VResult,
    ) -> bool {
        let mut matched = false;
        for (_, re, schema) in &self.junctors().pattern_properties {
            if re.as_ref().is_some_and(|re| re.is_match(&entry.key)) {
                matched = true;
                res.merge(schema.validate_at(
                    None,
                    &entry.value,
                    &format!("{path}.{}", entry.key),
                    entry.key_span,
                    None,
                ));
            }
        }
        matched
    }
}

fn static_type(t: &str) -> &'static [&'static str] {
    match t {
        "object" => &["object"],
        "array" => &["array"],
        "string" => &["string"],
        "integer" => &["integer"],
        "number" => &["number"],
        "boolean" => &["boolean"],
        "null" => &["null"],
        _ => &["unknown"],
    }
}

impl RawError {
    fn with_valid(mut self, limit: i64) -> Self {
        if let RawError::Validation { valid, .. } = &mut self {
            *valid = Some(limit);
        }
        self
    }
}

fn validation(
    code: Code,
    name: &str,
    value: Option<BadValue>,
    message: String,
    span: Span,
) -> RawError {
    RawError::Validation {
        code,
        name: name.to_string(),
        value,
        valid: None,
        values: Vec::new(),
        message,
        span,
    }
    .charged()
}

fn other(message: String, span: Span) -> RawError {
    RawError::Other { message, span }.charged()
}

impl RawError {
    /// Charges the error's text to the object being checked (see [`budget`]).
    fn charged(self) -> RawError {
        let bytes = match &self {
            RawError::Validation {
                name,
                value,
                values,
                message,
                ..
            } => {
                let value = match value {
                    Some(BadValue::Str(v) | BadValue::Raw(v)) => v.len(),
                    _ => 16,
                };
                name.len() + message.len() + value + values.iter().map(String::len).sum::<usize>()
            }
            RawError::Other { message, .. } => message.len(),
        };
        budget::charge(bytes);
        self
    }
}

/// `errors.InvalidType` with a string value: `<path> in body must be of type <t>: "<v>"`.
fn invalid_type(path: &str, type_name: &str, value: &str, span: Span) -> RawError {
    validation(
        Code::InvalidType,
        path,
        Some(BadValue::Str(value.to_string())),
        format!(
            "{path} in body must be of type {type_name}: {}",
            gofmt::quote(value)
        ),
        span,
    )
}

/// A number as Go's unstructured decoder holds it.
#[derive(Clone, Copy)]
enum NumberValue {
    Int(i64),
    Float(f64),
}

impl NumberValue {
    fn of(v: &Value) -> NumberValue {
        match v {
            Value::Int(i) => NumberValue::Int(*i),
            Value::Float(f) => NumberValue::Float(*f),
            _ => NumberValue::Float(0.0),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            NumberValue::Int(i) => i as f64,
            NumberValue::Float(f) => f,
        }
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's Display for f64 is the shortest round-trip decimal without exponent.
    format!("{f}")
}

/// Whether swag's text of `f` (`strconv.FormatFloat(f, 'f', -1, 64)`) parses as an
/// integer of `format`. Every schema bound is checked this way for every value, so the
/// common case skips the text: an integral float below 2^53 prints as exactly its
/// digits ("-0" for negative zero, which parses as 0).
fn float_fits_integer(f: f64, format: &str) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if f.fract() == 0.0 && f.abs() < EXACT {
        return format != "int32" || (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&f);
    }
    let repr = float_repr(f);
    match format {
        "int32" => repr.parse::<i32>().is_ok(),
        _ => repr.parse::<i64>().is_ok(),
    }
}

/// `IsValueValidAgainstRange`: whether the textual number fits the type and format.
///
/// The server parses swag's text of the number ([`NumberValue::repr`]); the text is
/// built only where the answer depends on it (a float checked as an integer): this
/// runs for every number of every resource.
fn range_error(
    value: NumberValue,
    type_name: &str,
    format: &str,
    prefix: &str,
    path: &str,
) -> Option<String> {
    let fits = match (type_name, value) {
        ("integer", NumberValue::Int(i)) => format != "int32" || i32::try_from(i).is_ok(),
        ("integer", NumberValue::Float(f)) => float_fits_integer(f, format),
        // Any int64 is a finite float32 (at most ~9.2e18 against ~3.4e38), and the
        // text of a float parses back to the same float (shortest round trip; NaN and
        // ±Inf parse too).
        (_, NumberValue::Int(_)) => true,
        (_, NumberValue::Float(f)) => {
            format != "float" || f.is_nan() || f.is_infinite() || (f as f32).is_finite()
        }
    };
    if fits {
        return None;
    }
    let type_name = if type_name.is_empty() {
        "number"
    } else {
        type_name
    };
    Some(if format.is_empty() {
        format!("{prefix} value must be of type {type_name} (default format) in {path}")
    } else {
        format!("{prefix} value must be of type {type_name} with format {format} in {path}")
    })
}

fn multiple_of_int(
    path: &str,
    data: i64,
    factor: i64,
    bad: &BadValue,
    span: Span,
) -> Option<RawError> {
    if factor <= 0 {
        return Some(validation(
            Code::MultipleOfMustBePositive,
            path,
            Some(BadValue::Int(factor)),
            format!("factor MultipleOf declared for {path} must be positive: {factor}"),
            span,
        ));
    }
    if data.wrapping_div(factor).wrapping_mul(factor) != data {
        return Some(validation(
            Code::MultipleOf,
            path,
            Some(bad.clone()),
            format!("{path} in body should be a multiple of {factor}"),
            span,
        ));
    }
    None
}

fn multiple_of_float(
    path: &str,
    data: f64,
    factor: f64,
    bad: &BadValue,
    span: Span,
) -> Option<RawError> {
    if factor <= 0.0 {
        return Some(validation(
            Code::MultipleOfMustBePositive,
            path,
            Some(BadValue::Float(factor)),
            format!(
                "factor MultipleOf declared for {path} must be positive: {}",
                gofmt::float_v(factor)
            ),
            span,
        ));
    }
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    if !is_json_integer(mult) {
        return Some(validation(
            Code::MultipleOf,
            path,
            Some(bad.clone()),
            format!(
                "{path} in body should be a multiple of {}",
                gofmt::float_v(factor)
            ),
            span,
        ));
    }
    None
}

fn bound_error(
    code: Code,
    path: &str,
    limit: &str,
    exclusive: bool,
    bad: &BadValue,
    span: Span,
) -> RawError {
    let relation = match (code, exclusive) {
        (Code::Max, false) => "less than or equal to",
        (Code::Max, true) => "less than",
        (_, false) => "greater than or equal to",
        (_, true) => "greater than",
    };
    validation(
        code,
        path,
        Some(bad.clone()),
        format!("{path} in body should be {relation} {limit}"),
        span,
    )
}

fn min_float(
    path: &str,
    data: f64,
    min: f64,
    excl: bool,
    bad: &BadValue,
    span: Span,
) -> Option<RawError> {
    let fails = if excl { data <= min } else { data < min };
    fails.then(|| bound_error(Code::Min, path, &gofmt::float_v(min), excl, bad, span))
}

fn max_float(
    path: &str,
    data: f64,
    max: f64,
    excl: bool,
    bad: &BadValue,
    span: Span,
) -> Option<RawError> {
    let fails = if excl { data >= max } else { data > max };
    fails.then(|| bound_error(Code::Max, path, &gofmt::float_v(max), excl, bad, span))
}

/// swag's `IsFloat64AJSONInteger` (with Go's amd64 float-to-integer conversions).
fn is_json_integer(f: f64) -> bool {
    const MAX_JSON_FLOAT: f64 = 9007199254740991.0; // 2^53 - 1
    const EPSILON: f64 = 1e-9;
    if f.is_nan() || f.is_infinite() || !(-MAX_JSON_FLOAT..=MAX_JSON_FLOAT).contains(&f) {
        return false;
    }
    let as_u64 = |f: f64| go_float_to_int(f) as u64;
    let fa = f.abs();
    let g = as_u64(f) as f64;
    let ga = g.abs();
    let diff = (f - g).abs();
    if f == g || f == go_float_to_int(f) as f64 || f == as_u64(f) as f64 {
        return true;
    }
    if f == 0.0 || g == 0.0 || diff < 5e-324 {
        return diff < EPSILON * 5e-324;
    }
    diff / (fa + ga).min(f64::MAX) < EPSILON
}

/// `%v` of a decoded JSON value inside a Go slice print (`[a b 1]`).
fn go_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => gofmt::float_v(*f),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| go_v(&i.value))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Value::Object(m) => {
            let mut keys: Vec<&crate::source::Entry> = m.entries.iter().collect();
            keys.sort_by(|a, b| a.key.cmp(&b.key));
            format!(
                "map[{}]",
                keys.iter()
                    .map(|e| format!("{}:{}", e.key, go_v(&e.value.value)))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
    }
}

/// kube-openapi's enum comparison: the value converted to the enum member's Go type
/// (when Go allows the conversion) must be deeply equal to it.
pub(crate) fn enum_matches(data: &Value, member: &Value) -> bool {
    match (data, member) {
        (Value::Int(i), Value::Float(f)) => (*i as f64) == *f,
        // Go converts float64 to int64 by truncation.
        (Value::Float(f), Value::Int(i)) => go_float_to_int(*f) == *i,
        // Go converts an integer to a string as a code point.
        (Value::Int(i), Value::String(s)) => {
            let c = u32::try_from(*i)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            s.chars().eq(std::iter::once(c))
        }
        _ => go_deep_equal_value(data, member),
    }
}

/// Go's float64 → int64 conversion on amd64 (out of range gives MinInt64).
pub(crate) fn go_float_to_int(f: f64) -> i64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() || !(-TWO_63..TWO_63).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// `reflect.DeepEqual` of two decoded JSON values (int64 and float64 differ).
pub fn go_deep_equal(a: &Node, b: &Node) -> bool {
    go_deep_equal_value(&a.value, &b.value)
}

fn go_deep_equal_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| go_deep_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            // Both are borrowed unchanged for the comparison.
            let _lookups = super::correlate::key_lookups();
            x.len() == y.len()
                && x.entries.iter().all(|e| {
                    super::correlate::field_of(y, &e.key)
                        .is_some_and(|v| go_deep_equal(&e.value, v))
                })
        }
        _ => false,
    }
}

/// apiextensions' `kubeOpenAPIResultToFieldErrors` for one error.
fn to_field_error(e: RawError) -> SchemaError {
    match e {
        RawError::Other { message, span } => SchemaError {
            error: FieldError::invalid(FieldPath::empty(), "", message),
            span,
        },
        RawError::Validation {
            code,
            name,
            value,
            valid,
            values,
            message,
            span,
        } => {
            let path = if name.is_empty() || name == "." {
                FieldPath::empty()
            } else {
                FieldPath::root(name.strip_prefix('.').unwrap_or(&name))
            };
            let value_or_empty = value.clone().unwrap_or(BadValue::Str(String::new()));
            let error = match code {
                Code::Required => FieldError::required(path, ""),
                Code::Enum => FieldError::not_supported(
                    path,
                    value.unwrap_or(BadValue::Json(serde_json::Value::Null)),
                    &values,
                ),
                Code::TooLong => FieldError::too_long(path, valid.unwrap_or(-1)),
                Code::MaxItems | Code::TooManyProperties => {
                    let actual = match value {
                        Some(BadValue::Int(i)) => i,
                        _ => -1,
                    };
                    FieldError::too_many(path, actual, valid.unwrap_or(-1))
                }
                Code::InvalidType => FieldError::type_invalid(path, value_or_empty, message),
                _ => FieldError::invalid(path, value_or_empty, message),
            };
            SchemaError { error, span }
        }
    }
}

/// Errors after which the server skips CEL rules (`hasBlockingErr`).
pub fn blocks_cel(error_type: ErrorType) -> bool {
    {
        matches!(
            error_type,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    }
}

#[cfg(test)]
mod float_range_tests {
    use super::{float_fits_integer, float_repr};

    /// The shortcut answers exactly as parsing swag's text does.
    #[test]
    fn float_fits_integer_agrees_with_parsing_the_text() {
        let slow = |f: f64, format: &str| {
            let repr = float_repr(f);
            match format {
                "int32" => repr.parse::<i32>().is_ok(),
                _ => repr.parse::<i64>().is_ok(),
            }
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -1.5,
            1e-300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            2147483647.0,
            2147483648.0,
            -2147483648.0,
            -2147483649.0,
            9007199254740991.0,
            9007199254740992.0,
            9007199254740993.0,
            -9007199254740992.0,
            9223372036854775807.0,
            -9223372036854775808.0,
            1e19,
            1e6,
        ];
        // A deterministic sweep over magnitudes and fractions.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let exp = (x % 70) as i32 - 5;
            let mantissa = (x >> 11) as f64 / (1u64 << 53) as f64;
            let v = mantissa * 10f64.powi(exp);
            values.push(v);
            values.push(-v.trunc());
        }
        for f in values {
            for format in ["", "int32", "int64"] {
                assert_eq!(
                    float_fits_integer(f, format),
                    slow(f, format),
                    "{f:?} {format}"
                );
            }
        }
    }
}

#[cfg(test)]
mod following_tests {
    use super::*;
    use serde_json::json;

    fn props(v: serde_json::Value) -> SchemaProps {
        crate::model::schema::from_json(&v)
    }

    fn messages(errors: &[SchemaError]) -> Vec<String> {
        errors
            .iter()
            .map(|e| format!("{}: {}", e.error.field, e.error.detail))
            .collect()
    }

    /// Built from the structural form and walked with it, a validator answers as the
    /// one built from the schema as written.
    fn both(schema: serde_json::Value, values: &[serde_json::Value]) -> Vec<Vec<String>> {
        let p = props(schema);
        let structural = crate::schema::structural::from_props(&p).expect("structural");
        for version in [KubeVersion::new(1, 35), KubeVersion::NEWEST] {
            let eager = Validator::new_at(&p, version);
            let lazy = Validator::following(&structural, version);
            for v in values {
                let node = Node::from_json(v, Span::default());
                assert_eq!(
                    eager.validate(&node),
                    lazy.validate_following(&node, &structural),
                    "{v}"
                );
                assert_eq!(
                    eager.validate_update(&node, &node, &structural),
                    lazy.validate_update(&node, &node, &structural),
                    "{v}"
                );
            }
        }
        let lazy = Validator::following(&structural, KubeVersion::NEWEST);
        values
            .iter()
            .map(|v| {
                messages(
                    &lazy.validate_following(&Node::from_json(v, Span::default()), &structural),
                )
            })
            .collect()
    }

    #[test]
    fn answers_as_the_validator_of_the_written_schema() {
        let schema = json!({
            "type": "object",
            "required": ["spec"],
            "properties": {
                "spec": {
                    "type": "object",
                    "maxProperties": 3,
                    "properties": {
                        "port": {"x-kubernetes-int-or-string": true,
                                 "anyOf": [{"type": "integer"}, {"type": "string"}],
                                 "pattern": "^[0-9]+$"},
                        "mode": {"type": "string", "enum": ["a", "b"]},
                        "when": {"type": "string", "format": "date-time"},
                        "list": {"type": "array", "maxItems": 2,
                                 "items": {"type": "object", "required": ["name"],
                                           "properties": {"name": {"type": "string", "maxLength": 3}}}},
                        "labels": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
                        "closed": {"type": "object", "additionalProperties": false,
                                   "properties": {"a": {"type": "string"}}},
                        "one": {"type": "object",
                                "oneOf": [{"required": ["x"]}, {"required": ["y"],
                                          "properties": {"y": {"maxLength": 1}}}],
                                "not": {"required": ["z"]},
                                "properties": {"x": {"type": "string"}, "y": {"type": "string"},
                                               "z": {"type": "string"}}}
                    }
                }
            }
        });
        let got = both(
            schema,
            &[
                json!({}),
                json!({"spec": {"port": 80, "mode": "a"}}),
                json!({"spec": {"port": "x8", "mode": "c", "when": "soon"}}),
                json!({"spec": {"list": [{"name": "long"}, {}, {"name": 1}]}}),
                json!({"spec": {"labels": {"a": 0, "b": "x"}, "closed": {"a": "", "b": 1}}}),
                json!({"spec": {"one": {"x": "", "y": "yy", "z": ""}}}),
                json!({"spec": {"one": {}}}),
                json!({"spec": "text"}),
                json!({"spec": null}),
            ],
        );
        assert_eq!(got[1], Vec::<String>::new());
        assert_eq!(
            got[2],
            [
                "spec.port: spec.port in body should match '^[0-9]+$'",
                "spec.mode: supported values: \"a\", \"b\"",
                "spec.when: spec.when in body must be of type date-time: \"soon\"",
            ]
            .map(String::from)
        );
        assert_eq!(
            got[4],
            [
                "spec.labels.a: spec.labels.a in body should be greater than or equal to 1",
                "spec.labels.b: spec.labels.b in body must be of type integer: \"string\"",
                "spec.closed: spec.closed.b in body is a forbidden property",
            ]
            .map(String::from)
        );
    }

    #[test]
    fn builds_only_the_nodes_a_value_reaches() {
        let p = props(json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"deep": {"type": "string"}}},
                "b": {"type": "object", "properties": {"deep": {"type": "string"}}}
            }
        }));
        let structural = crate::schema::structural::from_props(&p).expect("structural");
        let root = Validator::following(&structural, KubeVersion::NEWEST);
        let children = |v: &Validator| {
            v.lazy
                .as_ref()
                .and_then(|l| l.children.get())
                .map(|c| c.properties.len())
        };
        assert_eq!(children(&root), None);
        let value = Node::from_json(&json!({"a": {"deep": "x"}}), Span::default());
        assert!(root.validate_following(&value, &structural).is_empty());
        let built = root
            .lazy
            .as_ref()
            .and_then(|l| l.children.get())
            .expect("root's children");
        assert_eq!(children(&root), Some(2));
        assert_eq!(children(&built.properties[0]), Some(1));
        assert_eq!(children(&built.properties[1]), None);
    }

    #[test]
    fn a_junctors_additional_properties_boolean_is_kept() {
        // The structural form keeps `true` as an empty nested validation and drops
        // `false`; the validator tells both from a schema.
        let got = both(
            json!({
                "type": "object",
                "properties": {"o": {"type": "object", "properties": {"a": {"type": "string"}},
                    "anyOf": [{"additionalProperties": false, "properties": {"a": {}}},
                              {"additionalProperties": true, "required": ["b"]}]}}
            }),
            &[
                json!({"o": {"a": "x"}}),
                json!({"o": {"a": "x", "c": 1}}),
                json!({"o": {"b": 1, "c": 1}}),
            ],
        );
        assert_eq!(got[0], Vec::<String>::new());
        assert_eq!(
            got[1],
            [
                "<nil>: \"o\" must validate at least one schema (anyOf)",
                "o: o.c in body is a forbidden property",
            ]
            .map(String::from)
        );
        assert_eq!(got[2], Vec::<String>::new());
    }
}

#[cfg(test)]
mod default_value_tests {
    use super::*;
    use serde_json::json;

    fn props(v: serde_json::Value) -> SchemaProps {
        crate::model::schema::from_json(&v)
    }

    /// Built only where the default reaches, the validator answers as one built whole
    /// from the schema without `x-kubernetes-int-or-string` (kept under
    /// `patternProperties`), and builds nothing the value does not reach.
    #[test]
    fn a_default_values_validator_answers_as_the_whole_one() {
        let schema = |int_or_string: bool| {
            let ios = |mut s: serde_json::Value| {
                if int_or_string {
                    s["x-kubernetes-int-or-string"] = json!(true);
                }
                s
            };
            json!({
                "type": "object",
                "required": ["r"],
                "additionalProperties": false,
                "properties": {
                    "r": ios(json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})),
                    "o": {"type": "object", "required": ["x"], "properties": {
                        "x": {"type": "string", "format": "duration", "maxLength": 3},
                        "l": {"type": "array", "items": ios(json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "maximum": 3}))}
                    }},
                    "m": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0},
                          "allOf": [{"maxProperties": 2}], "not": {"required": ["bad"]}},
                    "p": {"type": "object", "patternProperties": {
                        "^i": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}
                    }},
                    "unreached": {"type": "object", "properties": {"deep": {"type": "string"}}}
                }
            })
        };
        let with = props(schema(true));
        let without = props(schema(false));
        let whole = Validator::build(&without, KubeVersion::NEWEST, Formats::AsWritten, 0);
        let values = [
            json!({}),
            json!({"r": 1.5}),
            json!({"r": "a", "z": 1}),
            json!({"r": 1, "o": {"x": "1h0m0s", "l": [1, 5, "s", null]}}),
            json!({"r": true, "o": {"l": [[]]}}),
            json!({"r": 1, "m": {"a": -1, "b": "s", "bad": 2}}),
            json!({"r": 1, "p": {"i1": 1.5, "i2": "s", "j": 1}}),
            json!({"r": 1, "o": null, "m": [], "p": "s"}),
        ];
        let mut answers = Vec::new();
        for value in &values {
            let node = Node::from_json(value, Span::default());
            let guided = Validator::new_for_default_value(&with, &node, KubeVersion::NEWEST);
            let got = guided.validate(&node);
            assert_eq!(got, whole.validate(&node), "{value}");
            answers.push(
                got.iter()
                    .map(|e| format!("{}: {}", e.error.field, e.error.detail))
                    .collect::<Vec<_>>(),
            );
        }
        // The values reach errors of every kind above.
        let counts: Vec<usize> = answers.iter().map(Vec::len).collect();
        assert_eq!(counts, [1, 3, 1, 2, 5, 5, 4, 4]);
        assert_eq!(answers[2], ["<nil>: .z in body is a forbidden property"]);
        assert_eq!(
            answers[3],
            [
                "o.x: may not be more than 3 bytes",
                "o.l[1]: o.l[1] in body should be less than or equal to 3"
            ]
        );
        // Under `patternProperties` int-or-string is kept (its type check joins both).
        assert_eq!(
            answers[6][0],
            "p.i1: p.i1 in body must be of type integer,string: \"number\""
        );
        // Only the reached nodes were built: `unreached` is an empty placeholder.
        let node = Node::from_json(&json!({"r": 1}), Span::default());
        let guided = Validator::new_for_default_value(&with, &node, KubeVersion::NEWEST);
        let index = guided.properties.iter().position(|(k, _)| k == "unreached");
        let placeholder = &guided.properties[index.unwrap()].1;
        assert!(placeholder.properties.is_empty() && placeholder.types.is_empty());
    }
}
