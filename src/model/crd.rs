//! A typed, spanned view of an `apiextensions.k8s.io/v1` CustomResourceDefinition,
//! decoded strictly as the API server decodes the request body.

use crate::diag::Diagnostic;
use crate::model::OBJECT_META_FIELDS;
use crate::model::decode::{At, Decoder, Field};
use crate::model::owner_ref::{self, OwnerRef};
use crate::model::schema::{self, SchemaProps};
use crate::source::{Node, Span};

pub use crate::model::decode::Field as Spanned;

/// What the server puts before a decoding error of a CRD request body.
pub const DECODE_PREFIX: &str =
    "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: ";

#[derive(Clone, Debug, Default)]
pub struct Crd {
    /// The whole document.
    pub span: Span,
    pub api_version: Option<Field<String>>,
    pub kind: Option<Field<String>>,
    pub metadata: ObjectMeta,
    /// Key span of `spec` (or the document when absent).
    pub spec_span: Span,
    pub spec_present: bool,
    pub group: Option<Field<String>>,
    pub names: Names,
    pub scope: Option<Field<String>>,
    /// `versions` key and value spans (value `()`); absent when not written.
    pub versions_field: Option<Field<()>>,
    pub versions: Vec<Version>,
    pub conversion: Option<Conversion>,
    pub preserve_unknown_fields: Option<Field<bool>>,
    pub status: Status,
}

/// A `map[string]string` in source order: (key, value).
pub type StringMap = Vec<(Field<String>, Field<String>)>;

#[derive(Clone, Debug, Default)]
pub struct ObjectMeta {
    /// Key span of `metadata` (the document when absent).
    pub key_span: Span,
    pub span: Span,
    pub name: Option<Field<String>>,
    pub generate_name: Option<Field<String>>,
    pub namespace: Option<Field<String>>,
    pub labels: Option<Field<StringMap>>,
    pub annotations: Option<Field<StringMap>>,
    pub finalizers: Option<Field<Vec<Field<String>>>>,
    pub owner_references: Option<Field<Vec<OwnerRef>>>,
    pub resource_version: Option<Field<String>>,
    pub uid: Option<Field<String>>,
    pub generation: Option<Field<i64>>,
    pub deletion_grace_period_seconds: Option<Field<i64>>,
}

#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Key span of `names` (the spec when absent).
    pub key_span: Span,
    pub span: Span,
    pub present: bool,
    pub plural: Option<Field<String>>,
    pub singular: Option<Field<String>>,
    pub short_names: Option<Field<Vec<Field<String>>>>,
    pub kind: Option<Field<String>>,
    pub list_kind: Option<Field<String>>,
    pub categories: Option<Field<Vec<Field<String>>>>,
}

#[derive(Clone, Debug, Default)]
pub struct Version {
    /// The list element.
    pub span: Span,
    pub name: Option<Field<String>>,
    pub served: Option<Field<bool>>,
    pub storage: Option<Field<bool>>,
    pub deprecated: Option<Field<bool>>,
    pub deprecation_warning: Option<Field<String>>,
    /// The `schema` key (value `()`), present when written (even as `{}`).
    pub schema_field: Option<Field<()>>,
    /// `schema.openAPIV3Schema`, decoded.
    pub schema: Option<SchemaProps>,
    /// Key span of `openAPIV3Schema`.
    pub schema_key_span: Option<Span>,
    pub subresources: Option<Subresources>,
    pub additional_printer_columns: Option<Field<Vec<PrinterColumn>>>,
    pub selectable_fields: Option<Field<Vec<SelectableField>>>,
}

#[derive(Clone, Debug, Default)]
pub struct Subresources {
    pub key_span: Span,
    pub span: Span,
    /// `status: {}` (value `()`).
    pub status: Option<Field<()>>,
    pub scale: Option<Scale>,
}

#[derive(Clone, Debug, Default)]
pub struct Scale {
    pub key_span: Span,
    pub span: Span,
    pub spec_replicas_path: Option<Field<String>>,
    pub status_replicas_path: Option<Field<String>>,
    pub label_selector_path: Option<Field<String>>,
}

#[derive(Clone, Debug, Default)]
pub struct PrinterColumn {
    pub span: Span,
    pub name: Option<Field<String>>,
    pub type_: Option<Field<String>>,
    pub format: Option<Field<String>>,
    pub description: Option<Field<String>>,
    pub priority: Option<Field<i64>>,
    pub json_path: Option<Field<String>>,
}

#[derive(Clone, Debug, Default)]
pub struct SelectableField {
    pub span: Span,
    pub json_path: Option<Field<String>>,
}

#[derive(Clone, Debug, Default)]
pub struct Conversion {
    pub key_span: Span,
    pub span: Span,
    pub strategy: Option<Field<String>>,
    pub webhook: Option<Webhook>,
}

#[derive(Clone, Debug, Default)]
pub struct Webhook {
    pub key_span: Span,
    pub span: Span,
    pub client_config: Option<ClientConfig>,
    pub conversion_review_versions: Option<Field<Vec<Field<String>>>>,
}

#[derive(Clone, Debug, Default)]
pub struct ClientConfig {
    pub key_span: Span,
    pub span: Span,
    pub url: Option<Field<String>>,
    pub service: Option<Service>,
    pub ca_bundle: Option<Field<Vec<u8>>>,
}

#[derive(Clone, Debug, Default)]
pub struct Service {
    pub key_span: Span,
    pub span: Span,
    pub namespace: Option<Field<String>>,
    pub name: Option<Field<String>>,
    pub path: Option<Field<String>>,
    pub port: Option<Field<i64>>,
}

#[derive(Clone, Debug, Default)]
pub struct Status {
    pub stored_versions: Option<Field<Vec<Field<String>>>>,
}

const ROOT_KEYS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];
const SPEC_KEYS: &[&str] = &[
    "group",
    "names",
    "scope",
    "versions",
    "conversion",
    "preserveUnknownFields",
];
const NAMES_KEYS: &[&str] = &[
    "plural",
    "singular",
    "shortNames",
    "kind",
    "listKind",
    "categories",
];
const VERSION_KEYS: &[&str] = &[
    "name",
    "served",
    "storage",
    "deprecated",
    "deprecationWarning",
    "schema",
    "subresources",
    "additionalPrinterColumns",
    "selectableFields",
];

/// Decodes a CRD document strictly. The diagnostics are the server's decoding errors
/// (one type error, or the unknown fields); when there are any, the server rejects the
/// request before validating it.
pub fn decode(root: &Node) -> (Crd, Vec<Diagnostic>) {
    let mut dec = Decoder::new(DECODE_PREFIX);
    let crd = decode_with(&mut dec, root);
    (crd, dec.finish())
}

fn str_field(
    dec: &mut Decoder,
    e: &crate::source::Entry,
    at: &At,
    go_type: &str,
) -> Option<Field<String>> {
    dec.string(&e.value, at, go_type)
        .map(|s| Field::new(s, e.key_span, e.value.span))
}

fn bool_field(dec: &mut Decoder, e: &crate::source::Entry, at: &At) -> Option<Field<bool>> {
    dec.boolean(&e.value, at)
        .map(|b| Field::new(b, e.key_span, e.value.span))
}

fn int_field(
    dec: &mut Decoder,
    e: &crate::source::Entry,
    at: &At,
    go_type: &str,
) -> Option<Field<i64>> {
    dec.int(&e.value, at, go_type)
        .map(|i| Field::new(i, e.key_span, e.value.span))
}

fn strings_field(
    dec: &mut Decoder,
    e: &crate::source::Entry,
    at: &At,
) -> Option<Field<Vec<Field<String>>>> {
    dec.strings(&e.value, at, "[]string")
        .map(|v| Field::new(v, e.key_span, e.value.span))
}

fn decode_with(dec: &mut Decoder, root: &Node) -> Crd {
    let at = At::root();
    let mut crd = Crd {
        span: root.span,
        spec_span: root.span,
        ..Crd::default()
    };
    crd.metadata.key_span = root.span;
    crd.metadata.span = root.span;
    crd.names.key_span = root.span;
    crd.names.span = root.span;
    let Some(entries) = dec.object(root, &at, "v1.CustomResourceDefinition", ROOT_KEYS) else {
        return crd;
    };
    for e in entries {
        match e.key.as_str() {
            "apiVersion" => {
                let at = at.field("CustomResourceDefinition", "TypeMeta.apiVersion");
                crd.api_version = str_field(dec, e, &at, "string");
            }
            "kind" => {
                let at = at.field("CustomResourceDefinition", "TypeMeta.kind");
                crd.kind = str_field(dec, e, &at, "string");
            }
            "metadata" => {
                let at = at.field("CustomResourceDefinition", "metadata");
                crd.metadata = decode_meta(dec, e, &at);
            }
            "spec" => {
                let at = at.field("CustomResourceDefinition", "spec");
                crd.spec_span = e.key_span;
                crd.names.key_span = e.key_span;
                crd.names.span = e.value.span;
                decode_spec(dec, e, &at, &mut crd);
            }
            "status" => {
                let at = at.field("CustomResourceDefinition", "status");
                crd.status = decode_status(dec, e, &at);
            }
            _ => {}
        }
    }
    crd
}

fn decode_meta(dec: &mut Decoder, entry: &crate::source::Entry, at: &At) -> ObjectMeta {
    const OM: &str = "ObjectMeta";
    let mut m = ObjectMeta {
        key_span: entry.key_span,
        span: entry.value.span,
        ..ObjectMeta::default()
    };
    let Some(entries) = dec.object(&entry.value, at, "v1.ObjectMeta", OBJECT_META_FIELDS) else {
        return m;
    };
    for e in entries {
        let fat = at.field(OM, &e.key);
        match e.key.as_str() {
            "name" => m.name = str_field(dec, e, &fat, "string"),
            "generateName" => m.generate_name = str_field(dec, e, &fat, "string"),
            "namespace" => m.namespace = str_field(dec, e, &fat, "string"),
            "selfLink" => {
                str_field(dec, e, &fat, "string");
            }
            "uid" => m.uid = str_field(dec, e, &fat, "types.UID"),
            "resourceVersion" => m.resource_version = str_field(dec, e, &fat, "string"),
            "generation" => m.generation = int_field(dec, e, &fat, "int64"),
            "creationTimestamp" | "deletionTimestamp" => dec.time(&e.value, &fat),
            "deletionGracePeriodSeconds" => {
                m.deletion_grace_period_seconds = int_field(dec, e, &fat, "int64");
            }
            "labels" => {
                m.labels = dec
                    .string_map(&e.value, &fat)
                    .map(|v| Field::new(v, e.key_span, e.value.span));
            }
            "annotations" => {
                m.annotations = dec
                    .string_map(&e.value, &fat)
                    .map(|v| Field::new(v, e.key_span, e.value.span));
            }
            "finalizers" => m.finalizers = strings_field(dec, e, &fat),
            "ownerReferences" => {
                if let Some(items) = dec.array(&e.value, &fat, "[]v1.OwnerReference") {
                    let mut refs = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        refs.push(owner_ref::decode(dec, item, &fat.index(i)));
                    }
                    m.owner_references = Some(Field::new(refs, e.key_span, e.value.span));
                }
            }
            "managedFields" => {
                if let Some(items) = dec.array(&e.value, &fat, "[]v1.ManagedFieldsEntry") {
                    for (i, item) in items.iter().enumerate() {
                        decode_managed_fields(dec, item, &fat.index(i));
                    }
                }
            }
            _ => {}
        }
    }
    m
}

fn decode_managed_fields(dec: &mut Decoder, node: &Node, at: &At) {
    const KEYS: &[&str] = &[
        "manager",
        "operation",
        "apiVersion",
        "time",
        "fieldsType",
        "fieldsV1",
        "subresource",
    ];
    let Some(entries) = dec.object(node, at, "v1.ManagedFieldsEntry", KEYS) else {
        return;
    };
    for e in entries {
        let fat = at.field("ManagedFieldsEntry", &e.key);
        match e.key.as_str() {
            "operation" => {
                dec.string(&e.value, &fat, "v1.ManagedFieldsOperationType");
            }
            "time" => dec.time(&e.value, &fat),
            // FieldsV1 keeps raw JSON.
            "fieldsV1" => {}
            _ => {
                dec.string(&e.value, &fat, "string");
            }
        }
    }
}

fn decode_spec(dec: &mut Decoder, entry: &crate::source::Entry, at: &At, crd: &mut Crd) {
    const SPEC: &str = "CustomResourceDefinitionSpec";
    let Some(entries) = dec.object(
        &entry.value,
        at,
        "v1.CustomResourceDefinitionSpec",
        SPEC_KEYS,
    ) else {
        return;
    };
    crd.spec_present = true;
    for e in entries {
        let fat = at.field(SPEC, &e.key);
        match e.key.as_str() {
            "group" => crd.group = str_field(dec, e, &fat, "string"),
            "names" => crd.names = decode_names(dec, e, &fat),
            "scope" => crd.scope = str_field(dec, e, &fat, "v1.ResourceScope"),
            "versions" => {
                if let Some(items) =
                    dec.array(&e.value, &fat, "[]v1.CustomResourceDefinitionVersion")
                {
                    crd.versions_field = Some(Field::new((), e.key_span, e.value.span));
                    for (i, item) in items.iter().enumerate() {
                        crd.versions.push(decode_version(dec, item, &fat.index(i)));
                    }
                }
            }
            "conversion" => crd.conversion = decode_conversion(dec, e, &fat),
            "preserveUnknownFields" => crd.preserve_unknown_fields = bool_field(dec, e, &fat),
            _ => {}
        }
    }
}

fn decode_names(dec: &mut Decoder, entry: &crate::source::Entry, at: &At) -> Names {
    const NAMES: &str = "CustomResourceDefinitionNames";
    let mut n = Names {
        key_span: entry.key_span,
        span: entry.value.span,
        ..Names::default()
    };
    let Some(entries) = dec.object(
        &entry.value,
        at,
        "v1.CustomResourceDefinitionNames",
        NAMES_KEYS,
    ) else {
        return n;
    };
    n.present = true;
    for e in entries {
        let fat = at.field(NAMES, &e.key);
        match e.key.as_str() {
            "plural" => n.plural = str_field(dec, e, &fat, "string"),
            "singular" => n.singular = str_field(dec, e, &fat, "string"),
            "shortNames" => n.short_names = strings_field(dec, e, &fat),
            "kind" => n.kind = str_field(dec, e, &fat, "string"),
            "listKind" => n.list_kind = str_field(dec, e, &fat, "string"),
            "categories" => n.categories = strings_field(dec, e, &fat),
            _ => {}
        }
    }
    n
}

fn decode_version(dec: &mut Decoder, node: &Node, at: &At) -> Version {
    const VER: &str = "CustomResourceDefinitionVersion";
    let mut v = Version {
        span: node.span,
        ..Version::default()
    };
    let Some(entries) = dec.object(node, at, "v1.CustomResourceDefinitionVersion", VERSION_KEYS)
    else {
        return v;
    };
    for e in entries {
        let fat = at.field(VER, &e.key);
        match e.key.as_str() {
            "name" => v.name = str_field(dec, e, &fat, "string"),
            "served" => v.served = bool_field(dec, e, &fat),
            "storage" => v.storage = bool_field(dec, e, &fat),
            "deprecated" => v.deprecated = bool_field(dec, e, &fat),
            "deprecationWarning" => v.deprecation_warning = str_field(dec, e, &fat, "string"),
            "schema" => {
                if let Some(entries) = dec.object(
                    &e.value,
                    &fat,
                    "v1.CustomResourceValidation",
                    &["openAPIV3Schema"],
                ) {
                    v.schema_field = Some(Field::new((), e.key_span, e.value.span));
                    for s in entries {
                        let sat = fat.field("CustomResourceValidation", "openAPIV3Schema");
                        if !s.value.is_null() {
                            v.schema_key_span = Some(s.key_span);
                            v.schema = schema::decode_with(dec, &s.value, &sat);
                        }
                    }
                }
            }
            "subresources" => v.subresources = decode_subresources(dec, e, &fat),
            "additionalPrinterColumns" => {
                if let Some(items) =
                    dec.array(&e.value, &fat, "[]v1.CustomResourceColumnDefinition")
                {
                    let cols = items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| decode_column(dec, item, &fat.index(i)))
                        .collect();
                    v.additional_printer_columns = Some(Field::new(cols, e.key_span, e.value.span));
                }
            }
            "selectableFields" => {
                if let Some(items) = dec.array(&e.value, &fat, "[]v1.SelectableField") {
                    let mut fields = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        let iat = fat.index(i);
                        let mut f = SelectableField {
                            span: item.span,
                            json_path: None,
                        };
                        if let Some(entries) =
                            dec.object(item, &iat, "v1.SelectableField", &["jsonPath"])
                        {
                            for e in entries {
                                let jat = iat.field("SelectableField", "jsonPath");
                                f.json_path = str_field(dec, e, &jat, "string");
                            }
                        }
                        fields.push(f);
                    }
                    v.selectable_fields = Some(Field::new(fields, e.key_span, e.value.span));
                }
            }
            _ => {}
        }
    }
    v
}

fn decode_column(dec: &mut Decoder, node: &Node, at: &At) -> PrinterColumn {
    const KEYS: &[&str] = &[
        "name",
        "type",
        "format",
        "description",
        "priority",
        "jsonPath",
    ];
    let mut c = PrinterColumn {
        span: node.span,
        ..PrinterColumn::default()
    };
    let Some(entries) = dec.object(node, at, "v1.CustomResourceColumnDefinition", KEYS) else {
        return c;
    };
    for e in entries {
        let fat = at.field("CustomResourceColumnDefinition", &e.key);
        match e.key.as_str() {
            "name" => c.name = str_field(dec, e, &fat, "string"),
            "type" => c.type_ = str_field(dec, e, &fat, "string"),
            "format" => c.format = str_field(dec, e, &fat, "string"),
            "description" => c.description = str_field(dec, e, &fat, "string"),
            "priority" => c.priority = int_field(dec, e, &fat, "int32"),
            "jsonPath" => c.json_path = str_field(dec, e, &fat, "string"),
            _ => {}
        }
    }
    c
}

fn decode_subresources(
    dec: &mut Decoder,
    entry: &crate::source::Entry,
    at: &At,
) -> Option<Subresources> {
    let entries = dec.object(
        &entry.value,
        at,
        "v1.CustomResourceSubresources",
        &["status", "scale"],
    )?;
    let mut s = Subresources {
        key_span: entry.key_span,
        span: entry.value.span,
        ..Subresources::default()
    };
    for e in entries {
        let fat = at.field("CustomResourceSubresources", &e.key);
        match e.key.as_str() {
            "status"
                if dec
                    .object(&e.value, &fat, "v1.CustomResourceSubresourceStatus", &[])
                    .is_some() =>
            {
                s.status = Some(Field::new((), e.key_span, e.value.span));
            }
            "scale" => {
                const KEYS: &[&str] = &[
                    "specReplicasPath",
                    "statusReplicasPath",
                    "labelSelectorPath",
                ];
                if let Some(entries) =
                    dec.object(&e.value, &fat, "v1.CustomResourceSubresourceScale", KEYS)
                {
                    let mut sc = Scale {
                        key_span: e.key_span,
                        span: e.value.span,
                        ..Scale::default()
                    };
                    for e in entries {
                        let sat = fat.field("CustomResourceSubresourceScale", &e.key);
                        let f = str_field(dec, e, &sat, "string");
                        match e.key.as_str() {
                            "specReplicasPath" => sc.spec_replicas_path = f,
                            "statusReplicasPath" => sc.status_replicas_path = f,
                            _ => sc.label_selector_path = f,
                        }
                    }
                    s.scale = Some(sc);
                }
            }
            _ => {}
        }
    }
    Some(s)
}

fn decode_conversion(
    dec: &mut Decoder,
    entry: &crate::source::Entry,
    at: &At,
) -> Option<Conversion> {
    let entries = dec.object(
        &entry.value,
        at,
        "v1.CustomResourceConversion",
        &["strategy", "webhook"],
    )?;
    let mut c = Conversion {
        key_span: entry.key_span,
        span: entry.value.span,
        ..Conversion::default()
    };
    for e in entries {
        let fat = at.field("CustomResourceConversion", &e.key);
        match e.key.as_str() {
            "strategy" => c.strategy = str_field(dec, e, &fat, "v1.ConversionStrategyType"),
            "webhook" => {
                let Some(entries) = dec.object(
                    &e.value,
                    &fat,
                    "v1.WebhookConversion",
                    &["clientConfig", "conversionReviewVersions"],
                ) else {
                    continue;
                };
                let mut w = Webhook {
                    key_span: e.key_span,
                    span: e.value.span,
                    ..Webhook::default()
                };
                for e in entries {
                    let wat = fat.field("WebhookConversion", &e.key);
                    match e.key.as_str() {
                        "clientConfig" => w.client_config = decode_client_config(dec, e, &wat),
                        _ => w.conversion_review_versions = strings_field(dec, e, &wat),
                    }
                }
                c.webhook = Some(w);
            }
            _ => {}
        }
    }
    Some(c)
}

fn decode_client_config(
    dec: &mut Decoder,
    entry: &crate::source::Entry,
    at: &At,
) -> Option<ClientConfig> {
    let entries = dec.object(
        &entry.value,
        at,
        "v1.WebhookClientConfig",
        &["url", "service", "caBundle"],
    )?;
    let mut c = ClientConfig {
        key_span: entry.key_span,
        span: entry.value.span,
        ..ClientConfig::default()
    };
    for e in entries {
        let fat = at.field("WebhookClientConfig", &e.key);
        match e.key.as_str() {
            "url" => c.url = str_field(dec, e, &fat, "string"),
            "caBundle" => {
                c.ca_bundle = dec
                    .bytes(&e.value, &fat)
                    .map(|b| Field::new(b, e.key_span, e.value.span));
            }
            _ => {
                const KEYS: &[&str] = &["namespace", "name", "path", "port"];
                let Some(entries) = dec.object(&e.value, &fat, "v1.ServiceReference", KEYS) else {
                    continue;
                };
                let mut s = Service {
                    key_span: e.key_span,
                    span: e.value.span,
                    ..Service::default()
                };
                for e in entries {
                    let sat = fat.field("ServiceReference", &e.key);
                    match e.key.as_str() {
                        "namespace" => s.namespace = str_field(dec, e, &sat, "string"),
                        "name" => s.name = str_field(dec, e, &sat, "string"),
                        "path" => s.path = str_field(dec, e, &sat, "string"),
                        _ => s.port = int_field(dec, e, &sat, "int32"),
                    }
                }
                c.service = Some(s);
            }
        }
    }
    Some(c)
}

fn decode_status(dec: &mut Decoder, entry: &crate::source::Entry, at: &At) -> Status {
    const KEYS: &[&str] = &[
        "conditions",
        "acceptedNames",
        "storedVersions",
        "observedGeneration",
    ];
    let mut st = Status::default();
    let Some(entries) = dec.object(&entry.value, at, "v1.CustomResourceDefinitionStatus", KEYS)
    else {
        return st;
    };
    for e in entries {
        let fat = at.field("CustomResourceDefinitionStatus", &e.key);
        match e.key.as_str() {
            "storedVersions" => st.stored_versions = strings_field(dec, e, &fat),
            "observedGeneration" => {
                int_field(dec, e, &fat, "int64");
            }
            "acceptedNames" => {
                decode_names(dec, e, &fat);
            }
            _ => {
                const CKEYS: &[&str] = &[
                    "type",
                    "status",
                    "lastTransitionTime",
                    "reason",
                    "message",
                    "observedGeneration",
                ];
                let Some(items) =
                    dec.array(&e.value, &fat, "[]v1.CustomResourceDefinitionCondition")
                else {
                    continue;
                };
                for (i, item) in items.iter().enumerate() {
                    let iat = fat.index(i);
                    let Some(entries) =
                        dec.object(item, &iat, "v1.CustomResourceDefinitionCondition", CKEYS)
                    else {
                        continue;
                    };
                    for e in entries {
                        let cat = iat.field("CustomResourceDefinitionCondition", &e.key);
                        match e.key.as_str() {
                            "type" => {
                                dec.string(
                                    &e.value,
                                    &cat,
                                    "v1.CustomResourceDefinitionConditionType",
                                );
                            }
                            "status" => {
                                dec.string(&e.value, &cat, "v1.ConditionStatus");
                            }
                            "lastTransitionTime" => dec.time(&e.value, &cat),
                            "observedGeneration" => {
                                dec.int(&e.value, &cat, "int64");
                            }
                            _ => {
                                dec.string(&e.value, &cat, "string");
                            }
                        }
                    }
                }
            }
        }
    }
    st
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        Node::from_json(&v, Span::default())
    }

    fn base() -> serde_json::Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"plural": "widgets", "kind": "Widget"},
                "scope": "Namespaced",
                "versions": [{
                    "name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object"}
                    }}}
                }]
            }
        })
    }

    #[test]
    fn decodes_a_clean_crd() {
        let (crd, diags) = decode(&node(base()));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(crd.group.unwrap().value, "example.com");
        assert_eq!(crd.versions.len(), 1);
        let schema = crd.versions[0].schema.as_ref().unwrap();
        assert_eq!(schema.type_.as_deref(), Some("object"));
        assert!(schema.property("spec").is_some());
    }

    #[test]
    fn unknown_fields_use_the_strict_decoder_path() {
        let mut v = base();
        v["spec"]["foo"] = json!(1);
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["bar"] =
            json!(2);
        // Inside `items` the server decodes leniently: no error.
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["items"] =
            json!({"zzz": 1});
        let (_, diags) = decode(&node(v));
        let msgs: Vec<_> = diags.iter().map(|d| d.detail.clone().unwrap()).collect();
        assert_eq!(
            msgs,
            [
                "unknown field \"spec.foo\"",
                "unknown field \"spec.versions[0].schema.openAPIV3Schema.properties.spec.bar\""
            ]
        );
        assert_eq!(
            diags[1].field.as_deref(),
            Some("spec.versions[0].schema.openAPIV3Schema.properties[spec].bar")
        );
    }

    #[test]
    fn type_errors_use_go_struct_field_names() {
        let mut v = base();
        v["spec"]["foo"] = json!(1);
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["maxLength"] =
            json!("x");
        let (_, diags) = decode(&node(v.clone()));
        assert_eq!(diags.len(), 1);
        assert_eq!(
            diags[0].message,
            "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.maxLength of type int64"
        );
        // An error inside `items` is fatal and wins over an earlier saved one.
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["items"] =
            json!({"maxLength": "a", "x-kubernetes-validations": [{"rule": 1}]});
        let (_, diags) = decode(&node(v.clone()));
        assert_eq!(
            diags[0].detail.as_deref(),
            Some(
                "json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.items.maxLength of type int64"
            )
        );
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["maxLength"] =
            json!(1.5);
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["items"] =
            json!({"x-kubernetes-validations": [{"rule": 1}]});
        let (_, diags) = decode(&node(v.clone()));
        assert_eq!(
            diags[0].detail.as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.items.x-kubernetes-validations.rule of type string"
            )
        );
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
            .as_object_mut()
            .unwrap()
            .remove("items");
        let (_, diags) = decode(&node(v.clone()));
        assert_eq!(
            diags[0].detail.as_deref(),
            Some(
                "json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.maxLength of type int64"
            )
        );
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["maxLength"] =
            json!(1);
        v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["additionalProperties"] = json!(1);
        let (_, diags) = decode(&node(v));
        assert_eq!(
            diags[0].detail.as_deref(),
            Some("boolean or JSON schema expected")
        );
    }
}
