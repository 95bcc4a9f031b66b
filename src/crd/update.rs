//! CRD updates: a CRD applied over an installed one is validated as an update of it
//! (`ValidateCustomResourceDefinitionUpdate`, after the strategy's `PrepareForUpdate`).
//!
//! The old CRD is taken as a server stores it once it is Established (unless its
//! manifest states another `Established` condition, as `kubectl get -o yaml` output
//! of a CRD whose names were not accepted does): its names are then immutable, its `status.storedVersions` are the old manifest's (or, when it states
//! none, its storage version), and every check it already failed is relaxed for the new
//! object exactly where the server relaxes it ([`Requirements`]).

use std::collections::{HashMap, HashSet};

use crate::diag::FieldPath;
use crate::model::crd::{Crd, Version};
use crate::model::schema::{SchemaOrArray, SchemaProps};
use crate::schema::structural;
use crate::source::Node;

use super::gojson::{self, Hoisted};
use super::spec;

/// What the server requires of the new object (`validationOptions`). A create requires
/// everything; an update requires what the old object already satisfied.
#[derive(Clone, Copy, Debug)]
pub struct Requirements {
    /// `conversionReviewVersions` must include v1 or v1beta1.
    pub recognized_conversion_review_version: bool,
    /// `spec.scope` and `spec.names.kind` are immutable (the old CRD is Established).
    pub immutable_names: bool,
    /// Every version needs a schema (else only the served ones, unless unknown fields
    /// are preserved).
    pub open_api_schema: bool,
    /// `type` must be one of the OpenAPI v3 types.
    pub valid_property_type: bool,
    /// Schemas must be structural (also required by the new object's own content:
    /// defaults, `x-kubernetes-*` extensions or pruning).
    pub structural_schema: bool,
    /// Defaults must not hold fields pruning would drop.
    pub pruned_defaults: bool,
    /// Items of a `set` list must be atomic.
    pub atomic_set_type: bool,
    /// Items of `set`/`map` lists and map-list keys must not be nullable, keys must be
    /// required or defaulted.
    pub map_list_keys_map_set_validation: bool,
    /// The conversion webhook's `caBundle` is not checked.
    pub allow_invalid_ca_bundle: bool,
    /// Per-rule and per-messageExpression CEL cost limits are not checked (set per
    /// version whose schema did not change).
    pub suppress_per_expression_cost: bool,
}

impl Requirements {
    /// `ValidateCustomResourceDefinition`'s options.
    pub const CREATE: Requirements = Requirements {
        recognized_conversion_review_version: true,
        immutable_names: false,
        open_api_schema: true,
        valid_property_type: true,
        structural_schema: true,
        pruned_defaults: true,
        atomic_set_type: true,
        map_list_keys_map_set_validation: true,
        // A CRD that is not Established yet may have an invalid CA bundle.
        allow_invalid_ca_bundle: true,
        suppress_per_expression_cost: false,
    };
}

impl Default for Requirements {
    fn default() -> Self {
        Requirements::CREATE
    }
}

/// The CEL expressions of the old object: rules and messageExpressions written before
/// compile with the server's stored-expressions environment (which has every library
/// of the server's own version), new ones with the new-expressions environment.
#[derive(Clone, Debug, Default)]
pub struct Preexisting {
    pub rules: HashSet<String>,
    pub message_expressions: HashSet<String>,
}

/// Whether the old CRD is Established: its first `Established` condition is `True`
/// (`IsCRDConditionTrue`); a manifest that states none (one from source control) is
/// taken for an installed CRD, which is.
fn established(root: &Node) -> bool {
    let conditions = root
        .get_path(&["status", "conditions"])
        .and_then(Node::as_array);
    let Some(first) = conditions.and_then(|list| {
        list.iter()
            .find(|c| c.get("type").and_then(Node::as_str) == Some("Established"))
    }) else {
        return true;
    };
    first.get("status").and_then(Node::as_str) == Some("True")
}

/// The old CRD as the server holds it, and what the update checks need from it alone.
#[derive(Debug)]
pub struct OldCrd {
    pub crd: Crd,
    hoisted: Hoisted,
    /// `status.storedVersions` as stored.
    pub stored_versions: Vec<String>,
    /// The requirements the old object already meets (immutable names included).
    pub requirements: Requirements,
    pub preexisting: Preexisting,
    /// `metadata.deletionTimestamp` and `deletionGracePeriodSeconds` as written (the
    /// update rules compare the new object's with them).
    pub deletion_timestamp: Option<String>,
    pub deletion_grace_period_seconds: Option<i64>,
}

impl OldCrd {
    /// Reads an old manifest. It is not validated: the server stored it, whatever
    /// today's rules say (a CRD created through v1beta1 may be non-structural).
    pub fn new(root: &Node) -> OldCrd {
        let (crd, _) = crate::model::crd::decode(root);
        let hoisted = spec::Defaulted::new(&crd, Some(root)).hoisted;
        let stored_versions = match crd.status.stored_versions.as_ref() {
            Some(list) if !list.value.is_empty() => {
                list.value.iter().map(|v| v.value.clone()).collect()
            }
            _ => crd
                .versions
                .iter()
                .find(|v| v.storage.as_ref().is_some_and(|s| s.value))
                .map(|v| text(&v.name).to_string())
                .into_iter()
                .collect(),
        };
        let established = established(root);
        let schemas = stored_schemas(&crd, hoisted);
        let any_node =
            |pred: &dyn Fn(&SchemaProps) -> bool| schemas.iter().any(|s| schema_has(s, pred, 0));
        let requirements = Requirements {
            recognized_conversion_review_version: crd
                .conversion
                .as_ref()
                .and_then(|c| c.webhook.as_ref())
                .and_then(|w| w.conversion_review_versions.as_ref())
                .is_none_or(|list| {
                    list.value.is_empty()
                        || list
                            .value
                            .iter()
                            .any(|v| v.value == "v1" || v.value == "v1beta1")
                }),
            immutable_names: established,
            open_api_schema: crd.versions.iter().all(|v| v.schema.is_some()),
            valid_property_type: !any_node(&|s| {
                s.type_
                    .as_deref()
                    .is_some_and(|t| !t.is_empty() && !OPENAPI_TYPES.contains(&t))
            }),
            structural_schema: !schemas.iter().any(|s| is_non_structural(s)),
            pruned_defaults: !schemas.iter().any(|s| has_unpruned_defaults(s)),
            atomic_set_type: !any_node(&has_non_atomic_set_items),
            map_list_keys_map_set_validation: !any_node(&has_invalid_map_list_keys_map_set),
            allow_invalid_ca_bundle: !established
                || crd
                    .conversion
                    .as_ref()
                    .and_then(|c| c.webhook.as_ref())
                    .and_then(|w| w.client_config.as_ref())
                    .and_then(|c| c.ca_bundle.as_ref())
                    .filter(|b| !b.value.is_empty())
                    .is_some_and(|b| super::cabundle::validate(&b.value).is_err()),
            suppress_per_expression_cost: false,
        };
        let mut preexisting = Preexisting::default();
        for s in &schemas {
            collect_expressions(s, &mut preexisting, 0);
        }
        let meta = root.get("metadata");
        let meta_text = |key: &str| {
            meta.and_then(|m| m.get(key))
                .and_then(Node::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let deletion_grace_period_seconds = meta
            .and_then(|m| m.get("deletionGracePeriodSeconds"))
            .and_then(Node::as_i64);
        OldCrd {
            hoisted,
            stored_versions,
            requirements,
            preexisting,
            deletion_timestamp: meta_text("deletionTimestamp"),
            deletion_grace_period_seconds,
            crd,
        }
    }

    /// The schema the server holds for each version (`GetSchemaForVersion`), by name:
    /// the shared one when every version had the same, whatever the name (`None`
    /// then); a name missing from the map is a version the server does not know.
    /// Built once: looking each new version up in the old list was quadratic.
    fn schemas_by_version(&self) -> Result<HashMap<&str, String>, String> {
        if self.hoisted.schema {
            return Err(self.crd.versions.first().map_or_else(
                || "null".to_string(),
                |v| gojson::version_field(v, "schema"),
            ));
        }
        if self.crd.versions.iter().all(|v| v.schema_field.is_none()) {
            return Err("null".to_string());
        }
        let mut by_name = HashMap::with_capacity(self.crd.versions.len());
        for v in &self.crd.versions {
            // The first of equal names, as a search from the start finds it.
            by_name
                .entry(text(&v.name))
                .or_insert_with(|| gojson::version_field(v, "schema"));
        }
        Ok(by_name)
    }

    /// The value of one of the old object's annotations.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.crd
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.value.iter().find(|(k, _)| k.value == key))
            .map(|(_, v)| v.value.as_str())
    }

    pub fn preserve_unknown_fields(&self) -> bool {
        self.crd
            .preserve_unknown_fields
            .as_ref()
            .is_some_and(|p| p.value)
    }

    /// The format texts the server finds unrecognized in the old object (its update
    /// warnings name only formats the old object did not have).
    pub fn unrecognized_formats(&self, version: crate::cel::KubeVersion) -> HashSet<String> {
        let mut out = HashSet::new();
        for s in stored_schemas(&self.crd, self.hoisted) {
            collect_formats(s, version, &mut out, 0);
        }
        out
    }
}

/// What an update needs from the old and the new object together.
pub struct Update<'a> {
    pub old: &'a OldCrd,
    /// Versions whose schema is semantically the same as before
    /// (`findVersionsWithUnchangedSchemas`).
    pub unchanged_schemas: HashSet<String>,
    /// Versions (`""`: the selectable fields shared by all) allowed to keep more than
    /// 8 selectable fields (`findTooManySelectableFieldsAllowed`).
    pub too_many_selectable_fields: HashSet<String>,
}

impl<'a> Update<'a> {
    pub fn new(old: &'a OldCrd, new: &spec::Defaulted) -> Update<'a> {
        let mut unchanged_schemas = HashSet::new();
        let old_schemas = old.schemas_by_version();
        // The schema every new version shares, when it is one.
        let new_shared = if new.hoisted.schema {
            Some(new.crd.versions.first().map_or_else(
                || "null".to_string(),
                |f| gojson::version_field(f, "schema"),
            ))
        } else if new.crd.versions.iter().all(|x| x.schema_field.is_none()) {
            Some("null".to_string())
        } else {
            None
        };
        for v in &new.crd.versions {
            let name = text(&v.name);
            let before = match &old_schemas {
                Err(shared) => shared,
                Ok(by_name) => match by_name.get(name) {
                    Some(schema) => schema,
                    None => continue,
                },
            };
            let now = match &new_shared {
                Some(shared) => std::borrow::Cow::Borrowed(shared.as_str()),
                None => std::borrow::Cow::Owned(gojson::version_field(v, "schema")),
            };
            if spec::semantically_equal(before, &now) {
                unchanged_schemas.insert(name.to_string());
            }
        }
        let mut too_many_selectable_fields = HashSet::new();
        let selectable = |v: &Version| gojson::version_field(v, "selectable");
        let count = |v: &Version| v.selectable_fields.as_ref().map_or(0, |f| f.value.len());
        let old_crd = &old.crd;
        // Shared by every version (moved to the spec): compared as a whole.
        let old_shared = old
            .hoisted
            .selectable_fields
            .then(|| old_crd.versions.first())
            .flatten();
        let new_shared = new
            .hoisted
            .selectable_fields
            .then(|| new.crd.versions.first())
            .flatten();
        if let Some(o) = old_shared
            && count(o) > 8
        {
            let now = new_shared.map_or_else(|| "null".to_string(), selectable);
            if spec::semantically_equal(&selectable(o), &now) {
                too_many_selectable_fields.insert(String::new());
            }
        }
        if !old.hoisted.selectable_fields {
            let mut old_by_name: HashMap<&str, &Version> = HashMap::new();
            for o in &old_crd.versions {
                old_by_name.entry(text(&o.name)).or_insert(o);
            }
            for v in &new.crd.versions {
                let name = text(&v.name);
                let Some(o) = old_by_name.get(name) else {
                    continue;
                };
                let now = if new.hoisted.selectable_fields {
                    "null".to_string()
                } else {
                    selectable(v)
                };
                if count(o) > 8 && spec::semantically_equal(&selectable(o), &now) {
                    too_many_selectable_fields.insert(name.to_string());
                }
            }
        }
        Update {
            old,
            unchanged_schemas,
            too_many_selectable_fields,
        }
    }

    /// The status the new object gets (`PrepareForUpdate`): the old stored versions,
    /// plus the new storage version when it was never stored.
    pub fn stored_versions(&self, new: &Crd) -> Vec<String> {
        let mut out = self.old.stored_versions.clone();
        if let Some(storage) = new
            .versions
            .iter()
            .find(|v| v.storage.as_ref().is_some_and(|s| s.value))
        {
            let name = text(&storage.name);
            if !out.iter().any(|s| s == name) {
                out.push(name.to_string());
            }
        }
        out
    }
}

const OPENAPI_TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

fn text(f: &Option<crate::model::decode::Field<String>>) -> &str {
    f.as_ref().map_or("", |f| f.value.as_str())
}

/// The schemas the server stores: the shared one when every version has the same,
/// else each version's.
fn stored_schemas(crd: &Crd, hoisted: Hoisted) -> Vec<&SchemaProps> {
    if hoisted.schema {
        crd.versions
            .first()
            .and_then(|v| v.schema.as_ref())
            .into_iter()
            .collect()
    } else {
        crd.versions
            .iter()
            .filter_map(|v| v.schema.as_ref())
            .collect()
    }
}

/// `SchemaHas`: whether `pred` holds at a node reached through items, junctors, `not`,
/// properties, additionalProperties, patternProperties, additionalItems, definitions.
fn schema_has(s: &SchemaProps, pred: &dyn Fn(&SchemaProps) -> bool, depth: usize) -> bool {
    super::warnings::any_node(s, &mut |n| pred(n), depth)
}

fn collect_expressions(s: &SchemaProps, out: &mut Preexisting, depth: usize) {
    super::warnings::visit(
        s,
        &crate::diag::LazyPath::Root,
        &mut |n, _| {
            for rule in n.x_validations.iter().flatten() {
                out.rules.insert(rule.rule.clone());
                if let Some(me) = rule.message_expression.as_deref().filter(|m| !m.is_empty()) {
                    out.message_expressions.insert(me.to_string());
                }
            }
        },
        depth,
    );
}

fn collect_formats(
    s: &SchemaProps,
    version: crate::cel::KubeVersion,
    out: &mut HashSet<String>,
    depth: usize,
) {
    super::warnings::visit(
        s,
        &crate::diag::LazyPath::Root,
        &mut |n, _| {
            let ty = n.type_.as_deref().unwrap_or("");
            if let Some(f) = n.format.as_deref()
                && super::warnings::is_unrecognized_format_at(ty, f, version)
            {
                out.insert(f.to_string());
            }
        },
        depth,
    );
}

/// `schemaIsNonStructural`.
fn is_non_structural(s: &SchemaProps) -> bool {
    match structural::from_props(s) {
        Err(_) => true,
        Ok(ss) => !structural::validate_structural(&FieldPath::empty(), &ss).is_empty(),
    }
}

/// `schemaHasUnprunedDefaults`: a default of a structural schema that pruning changes.
fn has_unpruned_defaults(s: &SchemaProps) -> bool {
    if !schema_has(s, &|n| n.default.is_some(), 0) {
        return false;
    }
    let Ok(ss) = structural::from_props(s) else {
        return false;
    };
    if !structural::validate_structural(&FieldPath::empty(), &ss).is_empty() {
        return false;
    }
    super::unpruned::has_unpruned_default(&ss)
}

/// `hasNonAtomicSetType` at one node.
fn has_non_atomic_set_items(s: &SchemaProps) -> bool {
    if s.x_list_type.as_deref() != Some("set") {
        return false;
    }
    let Some(SchemaOrArray::Schema(items)) = &s.items else {
        return false;
    };
    match items.type_.as_deref() {
        Some("array") => items.x_list_type.as_deref().is_some_and(|l| l != "atomic"),
        Some("object") => items.x_map_type.as_deref() != Some("atomic"),
        _ => false,
    }
}

/// `validateMapListKeysMapSet` finds something at one node.
fn has_invalid_map_list_keys_map_set(s: &SchemaProps) -> bool {
    let Some(SchemaOrArray::Schema(items)) = &s.items else {
        return false;
    };
    let Some(lt @ ("set" | "map")) = s.x_list_type.as_deref() else {
        return false;
    };
    if items.nullable {
        return true;
    }
    if lt != "map" {
        return false;
    }
    let required: HashSet<&str> = items
        .required
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let props = items.properties.as_deref().unwrap_or(&[]);
    let index = crate::schema::property_index::PropertyIndex::new(props);
    s.x_list_map_keys.iter().flatten().any(|k| {
        index.find(props, k).is_some_and(|(_, p)| {
            (!required.contains(k.as_str()) && p.default.is_none()) || p.nullable
        })
    })
}
