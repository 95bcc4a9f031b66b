//! The CEL type checker: cel-go's `checker.Check` algorithm (type inference with
//! type-parameter substitution, overload resolution, qualified-name resolution,
//! comprehension scopes) over [`crate::cel::ast`], with cel-go's error texts.
//!
//! The result, [`CheckedAst`], keeps the (rewritten) tree, the type of every node and
//! the resolved reference of every identifier and call: what the cost estimator and
//! the interpreter walk.

use crate::cel::ast::IdMap;

use super::ast::{Ast, Expr, ExprId, ExprKind, Literal};
use super::env::{Env, Function};
use super::errors::Issues;
use super::types::{
    Mapping, Type, format_function, is_assignable, is_assignable_list, most_general, substitute,
};

/// Object types the checker can look into (schema object types, library types).
pub trait TypeProvider {
    /// Whether `name` is a known object type.
    fn has_struct(&self, name: &str) -> bool;
    /// The type of `field` in object type `type_name`, if declared.
    fn field_type(&self, type_name: &str, field: &str) -> Option<Type>;
}

/// A provider knowing no object types. The object types of the Kubernetes libraries
/// (`kubernetes.URL`, `kubernetes.Quantity`, …) are unknown to the server's type
/// provider too: selecting a field of one is an `unexpected failed resolution`.
pub struct NoTypes;

impl TypeProvider for NoTypes {
    fn has_struct(&self, _: &str) -> bool {
        false
    }
    fn field_type(&self, _: &str, _: &str) -> Option<Type> {
        None
    }
}

/// Protobuf well-known message names the checker resolves besides those of the
/// environment's own list (`google.protobuf.Any`, `Value`, `Struct`, `ListValue`), with
/// the type a construction of them has.
pub fn well_known_type_idents() -> Vec<(&'static str, Type)> {
    let wrapper = |t: Type| Type::Wrapper(Box::new(t));
    vec![
        ("google.protobuf.BoolValue", wrapper(Type::Bool)),
        ("google.protobuf.BytesValue", wrapper(Type::Bytes)),
        ("google.protobuf.DoubleValue", wrapper(Type::Double)),
        ("google.protobuf.FloatValue", wrapper(Type::Double)),
        ("google.protobuf.Int64Value", wrapper(Type::Int)),
        ("google.protobuf.Int32Value", wrapper(Type::Int)),
        ("google.protobuf.UInt64Value", wrapper(Type::Uint)),
        ("google.protobuf.UInt32Value", wrapper(Type::Uint)),
        ("google.protobuf.StringValue", wrapper(Type::String)),
        ("google.protobuf.Duration", Type::Duration),
        ("google.protobuf.Timestamp", Type::Timestamp),
        (
            "google.protobuf.Empty",
            Type::Object("google.protobuf.Empty".into()),
        ),
    ]
}

/// The message name cel-go's checker looks fields up in when a well-known type is
/// constructed by a protobuf name (`google.protobuf.Int32Value{...}` uses the fields
/// of `Int64Value`), or `None` for other types.
fn well_known_message(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Any => "google.protobuf.Any",
        Type::Timestamp => "google.protobuf.Timestamp",
        Type::Duration => "google.protobuf.Duration",
        Type::Dyn => "google.protobuf.Value",
        Type::Null => "google.protobuf.NullValue",
        Type::Wrapper(p) => match **p {
            Type::Bool => "google.protobuf.BoolValue",
            Type::Bytes => "google.protobuf.BytesValue",
            Type::Double => "google.protobuf.DoubleValue",
            Type::Int => "google.protobuf.Int64Value",
            Type::String => "google.protobuf.StringValue",
            Type::Uint => "google.protobuf.UInt64Value",
            _ => return None,
        },
        Type::List(e) if **e == Type::Dyn => "google.protobuf.ListValue",
        Type::Map(k, v) if **k == Type::String && **v == Type::Dyn => "google.protobuf.Struct",
        _ => return None,
    })
}

/// The fields of the protobuf well-known messages, with their checker types; `None`
/// for a name that is not one of them.
fn well_known_fields(name: &str) -> Option<Vec<(&'static str, Type)>> {
    let value = |t: Type| vec![("value", t)];
    let struct_t = || Type::map(Type::String, Type::Dyn);
    Some(match name {
        "google.protobuf.BoolValue" => value(Type::Bool),
        "google.protobuf.BytesValue" => value(Type::Bytes),
        "google.protobuf.DoubleValue" => value(Type::Double),
        "google.protobuf.Int64Value" => value(Type::Int),
        "google.protobuf.StringValue" => value(Type::String),
        "google.protobuf.UInt64Value" => value(Type::Uint),
        "google.protobuf.Duration" | "google.protobuf.Timestamp" => {
            vec![("seconds", Type::Int), ("nanos", Type::Int)]
        }
        "google.protobuf.Any" => vec![("type_url", Type::String), ("value", Type::Bytes)],
        "google.protobuf.Struct" => vec![("fields", struct_t())],
        "google.protobuf.ListValue" => vec![("values", Type::list(Type::Dyn))],
        "google.protobuf.Value" => vec![
            ("null_value", Type::Int),
            ("number_value", Type::Double),
            ("string_value", Type::String),
            ("bool_value", Type::Bool),
            ("struct_value", struct_t()),
            ("list_value", Type::list(Type::Dyn)),
        ],
        "google.protobuf.Empty" => vec![],
        _ => return None,
    })
}

/// What an identifier or call node resolved to.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// A variable (or type name) by its fully qualified name.
    Ident(String),
    /// A function and the ids of the overloads that matched.
    Function {
        name: String,
        overload_ids: Vec<String>,
    },
}

/// A type-checked expression.
#[derive(Clone, Debug)]
pub struct CheckedAst {
    pub ast: Ast,
    pub types: IdMap<Type>,
    pub refs: IdMap<Reference>,
}

impl CheckedAst {
    /// The type of the whole expression (`ast.OutputType()`).
    pub fn output_type(&self) -> Type {
        self.types
            .get(&self.ast.expr.id)
            .cloned()
            .unwrap_or(Type::Dyn)
    }

    pub fn type_of(&self, id: ExprId) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Dyn)
    }
}

/// The declarations one expression is checked against.
pub struct Declarations<'a> {
    pub env: &'a Env,
    pub variables: &'a [(String, Type)],
    pub provider: &'a dyn TypeProvider,
}

/// Type-checks a parsed expression.
pub fn check(ast: Ast, decls: &Declarations<'_>) -> Result<CheckedAst, Issues> {
    let Ast { mut expr, source } = ast;
    let mut c = Checker {
        decls,
        source: &source,
        issues: Issues::new(&source.text),
        mappings: Mapping::default(),
        types: IdMap::default(),
        refs: IdMap::default(),
        scopes: Vec::new(),
        free_type_vars: 0,
    };
    c.check(&mut expr);
    let Checker {
        issues,
        mappings,
        types,
        refs,
        ..
    } = c;
    if !issues.is_empty() {
        return Err(issues);
    }
    let types = types
        .into_iter()
        .map(|(id, t)| (id, substitute(&mappings, &t, true)))
        .collect();
    Ok(CheckedAst {
        ast: Ast { expr, source },
        types,
        refs,
    })
}

struct Checker<'a, 'd> {
    decls: &'a Declarations<'d>,
    source: &'a super::ast::Source,
    issues: Issues,
    mappings: Mapping,
    types: IdMap<Type>,
    refs: IdMap<Reference>,
    scopes: Vec<Vec<(String, Type)>>,
    free_type_vars: usize,
}

impl<'d> Checker<'_, 'd> {
    fn error(&mut self, id: ExprId, message: String) {
        let offset = self.source.offset(id);
        self.issues.push_at(self.source, offset, message);
    }

    fn set_type(&mut self, id: ExprId, t: Type) {
        self.types.insert(id, t);
    }

    fn get_type(&self, id: ExprId) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Error)
    }

    fn lookup_ident(&self, name: &str) -> Option<(String, Type)> {
        let name = name.strip_prefix('.').unwrap_or(name);
        for scope in self.scopes.iter().rev() {
            if let Some((_, t)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Some((name.to_string(), t.clone()));
            }
        }
        if let Some((_, t)) = self.decls.variables.iter().find(|(n, _)| n == name) {
            return Some((name.to_string(), t.clone()));
        }
        if let Some(t) = self.decls.env.ident(name) {
            return Some((name.to_string(), t.clone()));
        }
        if self.decls.provider.has_struct(name) {
            return Some((
                name.to_string(),
                Type::type_of(Type::Object(name.to_string())),
            ));
        }
        None
    }

    fn lookup_function(&self, name: &str) -> Option<&'d Function> {
        let name = name.strip_prefix('.').unwrap_or(name);
        self.decls.env.function(name)
    }

    fn new_type_var(&mut self) -> Type {
        let t = Type::TypeParam(format!("_var{}", self.free_type_vars));
        self.free_type_vars += 1;
        t
    }

    fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        is_assignable(&mut self.mappings, t1, t2)
    }

    fn check(&mut self, e: &mut Expr) {
        let id = e.id;
        match &mut e.kind {
            ExprKind::Literal(l) => {
                let t = match l {
                    Literal::Bool(_) => Type::Bool,
                    Literal::Int(_) => Type::Int,
                    Literal::Uint(_) => Type::Uint,
                    Literal::Double(_) => Type::Double,
                    Literal::String(_) => Type::String,
                    Literal::Bytes(_) => Type::Bytes,
                    Literal::Null => Type::Null,
                };
                self.set_type(id, t);
            }
            ExprKind::Ident(name) => {
                let name = name.clone();
                match self.lookup_ident(&name) {
                    Some((full, t)) => {
                        self.set_type(id, t);
                        self.refs.insert(id, Reference::Ident(full.clone()));
                        e.kind = ExprKind::Ident(full);
                    }
                    None => {
                        self.set_type(id, Type::Error);
                        self.error(
                            id,
                            format!("undeclared reference to '{name}' (in container '')"),
                        );
                    }
                }
            }
            ExprKind::Select { .. } => self.check_select(e),
            ExprKind::Call { .. } => self.check_call(e),
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                let optional_indices = optional_indices.clone();
                let mut elems_type: Option<Type> = None;
                for (i, el) in elements.iter_mut().enumerate() {
                    self.check(el);
                    let mut et = self.get_type(el.id);
                    if optional_indices.contains(&i) {
                        let (inner, is_opt) = et.unwrap_optional();
                        let inner = inner.clone();
                        if !is_opt && !inner.is_dyn() {
                            self.error(
                                el.id,
                                format!(
                                    "expected type '{}' but found '{}'",
                                    Type::optional(inner.clone()),
                                    inner
                                ),
                            );
                        }
                        et = inner;
                    }
                    elems_type = Some(self.join_types(el.id, elems_type, et));
                }
                let elem = match elems_type {
                    Some(t) => t,
                    None => self.new_type_var(),
                };
                self.set_type(id, Type::list(elem));
            }
            ExprKind::Map { entries } => {
                let mut key_type: Option<Type> = None;
                let mut val_type: Option<Type> = None;
                for en in entries.iter_mut() {
                    self.check(&mut en.key);
                    let kt = self.get_type(en.key.id);
                    key_type = Some(self.join_types(en.key.id, key_type, kt));
                    self.check(&mut en.value);
                    let mut vt = self.get_type(en.value.id);
                    if en.optional {
                        let (inner, is_opt) = vt.unwrap_optional();
                        let inner = inner.clone();
                        if !is_opt && !inner.is_dyn() {
                            self.error(
                                en.value.id,
                                format!(
                                    "expected type '{}' but found '{}'",
                                    Type::optional(inner.clone()),
                                    inner
                                ),
                            );
                        }
                        vt = inner;
                    }
                    val_type = Some(self.join_types(en.value.id, val_type, vt));
                }
                let (k, v) = match (key_type, val_type) {
                    (Some(k), Some(v)) => (k, v),
                    _ => (self.new_type_var(), self.new_type_var()),
                };
                self.set_type(id, Type::map(k, v));
            }
            ExprKind::Struct { .. } => self.check_struct(e),
            ExprKind::Comprehension(_) => self.check_comprehension(e),
        }
    }

    fn join_types(&mut self, _id: ExprId, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else {
            return current;
        };
        if self.is_assignable(&previous, &current) {
            return most_general(&previous, &current);
        }
        // Aggregate literals with mixed element types are `dyn` for the checker; the
        // homogeneous-literal validator reports them afterwards.
        Type::Dyn
    }

    fn check_select(&mut self, e: &mut Expr) {
        let id = e.id;
        if let Some(qname) = e.qualified_name()
            && let Some((full, t)) = self.lookup_ident(&qname)
        {
            self.set_type(id, t);
            self.refs.insert(id, Reference::Ident(full.clone()));
            e.kind = ExprKind::Ident(full);
            return;
        }
        let ExprKind::Select {
            operand,
            field,
            test_only,
        } = &mut e.kind
        else {
            return;
        };
        let field = field.clone();
        let test_only = *test_only;
        let mut result = self.check_select_field(id, operand, &field, false);
        if test_only {
            result = Type::Bool;
        }
        let t = substitute(&self.mappings, &result, false);
        self.set_type(id, t);
    }

    fn check_select_field(
        &mut self,
        id: ExprId,
        operand: &mut Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        self.check(operand);
        let operand_type = substitute(&self.mappings, &self.get_type(operand.id), false);
        let (target, is_opt) = operand_type.unwrap_optional();
        let target = target.clone();
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Object(name) => self
                .lookup_field_type(id, name, field)
                .unwrap_or(Type::Error),
            Type::TypeParam(_) => {
                self.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            other => {
                if !other.is_dyn_or_error() {
                    self.error(
                        id,
                        format!("type '{other}' does not support field selection"),
                    );
                }
                Type::Dyn
            }
        };
        if is_opt || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    fn lookup_field_type(&mut self, id: ExprId, type_name: &str, field: &str) -> Option<Type> {
        if let Some(fields) = well_known_fields(type_name) {
            let found = fields
                .into_iter()
                .find(|(n, _)| *n == field)
                .map(|(_, t)| t);
            if found.is_none() {
                self.error(id, format!("undefined field '{field}'"));
            }
            return found;
        }
        if !self.decls.provider.has_struct(type_name) {
            self.error(id, format!("unexpected failed resolution of '{type_name}'"));
            return None;
        }
        match self.decls.provider.field_type(type_name, field) {
            Some(t) => Some(t),
            None => {
                self.error(id, format!("undefined field '{field}'"));
                None
            }
        }
    }

    fn check_opt_select(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Call { target, args, .. } = &mut e.kind else {
            return;
        };
        if args.len() != 2 || target.is_some() {
            let t = if target.is_some() {
                " member call with"
            } else {
                ""
            };
            let n = args.len();
            self.error(
                id,
                format!(
                    "unsupported optional field selection: incorrect signature.{t} argument count: {n}"
                ),
            );
            return;
        }
        let field_name = match &args[1].kind {
            ExprKind::Literal(Literal::String(s)) => s.clone(),
            _ => {
                let fid = args[1].id;
                self.error(fid, "unsupported optional field selection".to_string());
                return;
            }
        };
        let (operand, _) = args.split_at_mut(1);
        let result = self.check_select_field(id, &mut operand[0], &field_name, true);
        let t = substitute(&self.mappings, &result, false);
        self.set_type(id, t);
        self.refs.insert(
            id,
            Reference::Function {
                name: "_?._".into(),
                overload_ids: vec!["select_optional_field".into()],
            },
        );
    }

    fn check_call(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Call {
            function,
            target,
            args,
        } = &mut e.kind
        else {
            return;
        };
        if function == "_?._" {
            self.check_opt_select(e);
            return;
        }
        let fn_name = function.clone();
        for a in args.iter_mut() {
            self.check(a);
        }
        match target {
            None => {
                let Some(func) = self.lookup_function(&fn_name) else {
                    self.error(
                        id,
                        format!("undeclared reference to '{fn_name}' (in container '')"),
                    );
                    self.set_type(id, Type::Error);
                    return;
                };
                *function = func.name.clone();
                let arg_types: Vec<Type> = args.iter().map(|a| self.get_type(a.id)).collect();
                let arg_ids: Vec<ExprId> = args.iter().map(|a| a.id).collect();
                self.resolve_overload_or_error(id, func, false, arg_types, &arg_ids);
            }
            Some(t) => {
                if let Some(prefix) = t.qualified_name() {
                    let qualified = format!("{prefix}.{fn_name}");
                    if let Some(func) = self.lookup_function(&qualified) {
                        *function = func.name.clone();
                        *target = None;
                        let arg_types: Vec<Type> =
                            args.iter().map(|a| self.get_type(a.id)).collect();
                        let arg_ids: Vec<ExprId> = args.iter().map(|a| a.id).collect();
                        self.resolve_overload_or_error(id, func, false, arg_types, &arg_ids);
                        return;
                    }
                }
                self.check(t);
                let Some(func) = self.lookup_function(&fn_name) else {
                    self.set_type(id, Type::Error);
                    self.error(
                        id,
                        format!("undeclared reference to '{fn_name}' (in container '')"),
                    );
                    return;
                };
                let mut arg_types = vec![self.get_type(t.id)];
                arg_types.extend(args.iter().map(|a| self.get_type(a.id)));
                let mut arg_ids = vec![t.id];
                arg_ids.extend(args.iter().map(|a| a.id));
                self.resolve_overload_or_error(id, func, true, arg_types, &arg_ids);
            }
        }
    }

    fn resolve_overload_or_error(
        &mut self,
        id: ExprId,
        func: &Function,
        member: bool,
        mut arg_types: Vec<Type>,
        arg_ids: &[ExprId],
    ) {
        let mut result: Option<Type> = None;
        let mut overload_ids: Vec<String> = Vec::new();
        for o in &func.overloads {
            if self.decls.env.is_overload_disabled(&o.id) {
                continue;
            }
            if o.member != member {
                continue;
            }
            if func.name == "_&&_" || func.name == "_||_" {
                let mut failed = false;
                // Arguments start after the target, which logical operators never have.
                for (i, at) in arg_types.iter().enumerate() {
                    if !self.is_assignable(at, &Type::Bool) {
                        let aid = arg_ids.get(i).copied().unwrap_or(id);
                        self.error(aid, format!("expected type 'bool' but found '{at}'"));
                        failed = true;
                    }
                }
                if failed {
                    self.set_type(id, Type::Error);
                    return;
                }
                self.set_type(id, Type::Bool);
                self.refs.insert(
                    id,
                    Reference::Function {
                        name: func.name.clone(),
                        overload_ids: vec![o.id.clone()],
                    },
                );
                return;
            }
            let (params, res) = if o.type_params.is_empty() {
                (o.args.clone(), o.result.clone())
            } else {
                let mut fresh = Vec::new();
                for tp in &o.type_params {
                    let v = self.new_type_var();
                    fresh.push((Type::param(tp), v));
                }
                let instantiate = |t: &Type| -> Type { replace_params(t, &fresh) };
                (
                    o.args.iter().map(instantiate).collect::<Vec<_>>(),
                    instantiate(&o.result),
                )
            };
            if is_assignable_list(&mut self.mappings, &arg_types, &params) {
                overload_ids.push(o.id.clone());
                let fn_result = substitute(&self.mappings, &res, false);
                match &result {
                    None => result = Some(fn_result),
                    Some(r) if !r.is_dyn() && !fn_result.is_exact(r) => result = Some(Type::Dyn),
                    _ => {}
                }
            }
        }
        match result {
            None => {
                for t in arg_types.iter_mut() {
                    *t = substitute(&self.mappings, t, true);
                }
                let sig = format_function(None, &arg_types, member);
                self.error(
                    id,
                    format!(
                        "found no matching overload for '{}' applied to '{sig}'",
                        func.name
                    ),
                );
                self.set_type(id, Type::Error);
            }
            Some(t) => {
                self.set_type(id, t);
                self.refs.insert(
                    id,
                    Reference::Function {
                        name: func.name.clone(),
                        overload_ids,
                    },
                );
            }
        }
    }

    fn check_struct(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Struct { type_name, fields } = &mut e.kind else {
            return;
        };
        let Some((full, ident_type)) = self.lookup_ident(type_name) else {
            let n = type_name.clone();
            self.error(
                id,
                format!("undeclared reference to '{n}' (in container '')"),
            );
            self.set_type(id, Type::Error);
            return;
        };
        *type_name = full.clone();
        self.refs.insert(id, Reference::Ident(full.clone()));
        let mut result = Type::Error;
        let mut msg_name = full.clone();
        match &ident_type {
            Type::Error => {}
            Type::Type(Some(inner)) => match &**inner {
                t if well_known_message(t).is_some() => {
                    result = t.clone();
                    msg_name = well_known_message(t).unwrap_or_default().to_string();
                }
                Type::Object(n) => {
                    result = (**inner).clone();
                    msg_name = n.clone();
                }
                other => {
                    self.error(id, format!("'{}' is not a message type", other.type_name()));
                }
            },
            other => {
                self.error(id, format!("'{}' is not a type", other.type_name()));
            }
        }
        self.set_type(id, result.clone());
        for f in fields.iter_mut() {
            self.check(&mut f.value);
            let field_type = if result == Type::Error {
                Type::Error
            } else {
                self.lookup_field_type(f.id, &msg_name, &f.name)
                    .unwrap_or(Type::Error)
            };
            let mut vt = self.get_type(f.value.id);
            if f.optional {
                let (inner, is_opt) = vt.unwrap_optional();
                let inner = inner.clone();
                if !is_opt && !inner.is_dyn() {
                    self.error(
                        f.value.id,
                        format!(
                            "expected type '{}' but found '{}'",
                            Type::optional(inner.clone()),
                            inner
                        ),
                    );
                }
                vt = inner;
            }
            if !self.is_assignable(&field_type, &vt) {
                self.error(
                    f.id,
                    format!(
                        "expected type of field '{}' is '{}' but provided type is '{}'",
                        f.name, field_type, vt
                    ),
                );
            }
        }
    }

    fn check_comprehension(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Comprehension(c) = &mut e.kind else {
            return;
        };
        self.check(&mut c.iter_range);
        self.check(&mut c.accu_init);
        let range_type = substitute(&self.mappings, &self.get_type(c.iter_range.id), false);
        let accu_type = self.get_type(c.accu_init.id);
        self.scopes
            .push(vec![(c.accu_var.clone(), accu_type.clone())]);
        let two = c.iter_var2.is_some();
        let (var_type, var2_type) = match &range_type {
            Type::List(elem) => {
                if two {
                    (Type::Int, (**elem).clone())
                } else {
                    ((**elem).clone(), Type::Dyn)
                }
            }
            Type::Map(k, v) => ((**k).clone(), (**v).clone()),
            Type::Dyn | Type::Any | Type::Error | Type::TypeParam(_) => {
                self.is_assignable(&Type::Dyn, &range_type);
                (Type::Dyn, Type::Dyn)
            }
            other => {
                self.error(
                    c.iter_range.id,
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                );
                (Type::Error, Type::Error)
            }
        };
        let mut scope = vec![(c.iter_var.clone(), var_type)];
        if let Some(v2) = &c.iter_var2 {
            scope.push((v2.clone(), var2_type));
        }
        self.scopes.push(scope);
        self.check(&mut c.loop_condition);
        self.assert_type(c.loop_condition.id, &Type::Bool);
        self.check(&mut c.loop_step);
        self.assert_type(c.loop_step.id, &accu_type);
        self.scopes.pop();
        self.check(&mut c.result);
        self.scopes.pop();
        let t = substitute(&self.mappings, &self.get_type(c.result.id), false);
        self.set_type(id, t);
    }

    fn assert_type(&mut self, id: ExprId, expected: &Type) {
        let actual = self.get_type(id);
        if !self.is_assignable(expected, &actual) {
            self.error(
                id,
                format!("expected type '{expected}' but found '{actual}'"),
            );
        }
    }
}

/// Replaces named type parameters by fresh ones.
fn replace_params(t: &Type, fresh: &[(Type, Type)]) -> Type {
    if let Some((_, to)) = fresh.iter().find(|(from, _)| from == t) {
        return to.clone();
    }
    match t {
        Type::List(e) => Type::list(replace_params(e, fresh)),
        Type::Map(k, v) => Type::map(replace_params(k, fresh), replace_params(v, fresh)),
        Type::Type(Some(inner)) => Type::type_of(replace_params(inner, fresh)),
        Type::Opaque(n, ps) => Type::Opaque(
            n.clone(),
            ps.iter().map(|p| replace_params(p, fresh)).collect(),
        ),
        other => other.clone(),
    }
}
