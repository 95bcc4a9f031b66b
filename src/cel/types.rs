//! CEL types as cel-go's checker sees them (`common/types.Type`), their display
//! (`FormatCELType`), and the assignability rules with type-parameter substitution
//! (`checker/types.go`, `checker/mapping.go`).

use std::collections::HashMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Any,
    Bool,
    Bytes,
    Double,
    Duration,
    Dyn,
    Error,
    Int,
    Null,
    String,
    Timestamp,
    Uint,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// A message/object type, by name: schema objects, `kubernetes.Quantity`, ….
    Object(String),
    TypeParam(String),
    /// `type`, or `type(T)`.
    Type(Option<Box<Type>>),
    /// An abstract type: `optional_type(T)`, `net.IP`, `net.CIDR`, `function(…)`.
    Opaque(String, Vec<Type>),
    /// A protobuf wrapper type, `wrapper(int)` (cel-go's nullable type): the kind and
    /// runtime name of its primitive, assignable from that primitive and from null.
    Wrapper(Box<Type>),
}

/// cel-go's type kinds, used where its rules compare kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Any,
    Bool,
    Bytes,
    Double,
    Duration,
    Dyn,
    Error,
    Int,
    List,
    Map,
    Null,
    Opaque,
    String,
    Struct,
    Timestamp,
    Type,
    TypeParam,
    Uint,
}

impl Type {
    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Box::new(key), Box::new(value))
    }

    pub fn optional(t: Type) -> Type {
        Type::Opaque("optional_type".into(), vec![t])
    }

    pub fn type_of(t: Type) -> Type {
        Type::Type(Some(Box::new(t)))
    }

    pub fn param(name: &str) -> Type {
        Type::TypeParam(name.to_string())
    }

    pub fn kind(&self) -> Kind {
        match self {
            Type::Any => Kind::Any,
            Type::Bool => Kind::Bool,
            Type::Bytes => Kind::Bytes,
            Type::Double => Kind::Double,
            Type::Duration => Kind::Duration,
            Type::Dyn => Kind::Dyn,
            Type::Error => Kind::Error,
            Type::Int => Kind::Int,
            Type::Null => Kind::Null,
            Type::String => Kind::String,
            Type::Timestamp => Kind::Timestamp,
            Type::Uint => Kind::Uint,
            Type::List(_) => Kind::List,
            Type::Map(..) => Kind::Map,
            Type::Object(_) => Kind::Struct,
            Type::TypeParam(_) => Kind::TypeParam,
            Type::Type(_) => Kind::Type,
            Type::Opaque(..) => Kind::Opaque,
            Type::Wrapper(p) => p.kind(),
        }
    }

    /// The runtime type name (`TypeName()`).
    pub fn type_name(&self) -> &str {
        match self {
            Type::Any => "google.protobuf.Any",
            Type::Bool => "bool",
            Type::Bytes => "bytes",
            Type::Double => "double",
            Type::Duration => "google.protobuf.Duration",
            Type::Dyn => "dyn",
            Type::Error => "error",
            Type::Int => "int",
            Type::Null => "null_type",
            Type::String => "string",
            Type::Timestamp => "google.protobuf.Timestamp",
            Type::Uint => "uint",
            Type::List(_) => "list",
            Type::Map(..) => "map",
            Type::Object(n) | Type::TypeParam(n) | Type::Opaque(n, _) => n,
            Type::Type(_) => "type",
            Type::Wrapper(p) => p.type_name(),
        }
    }

    pub fn params(&self) -> Vec<&Type> {
        match self {
            Type::List(e) => vec![e],
            Type::Map(k, v) => vec![k, v],
            Type::Type(Some(t)) => vec![t],
            Type::Opaque(_, ps) => ps.iter().collect(),
            _ => vec![],
        }
    }

    fn with_params(&self, params: Vec<Type>) -> Type {
        let mut it = params.into_iter();
        match self {
            Type::List(_) => Type::list(it.next().unwrap_or(Type::Dyn)),
            Type::Map(..) => {
                let k = it.next().unwrap_or(Type::Dyn);
                let v = it.next().unwrap_or(Type::Dyn);
                Type::map(k, v)
            }
            Type::Type(Some(_)) => Type::type_of(it.next().unwrap_or(Type::Dyn)),
            Type::Opaque(n, _) => Type::Opaque(n.clone(), it.collect()),
            other => other.clone(),
        }
    }

    /// `dyn`, `any` (cel-go's checker `isDyn`).
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn | Type::Any)
    }

    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Any | Type::Error)
    }

    pub fn is_optional(&self) -> bool {
        matches!(self, Type::Opaque(n, p) if n == "optional_type" && p.len() == 1)
    }

    /// The value type of an optional, and whether it was one.
    pub fn unwrap_optional(&self) -> (&Type, bool) {
        match self {
            Type::Opaque(n, p) if n == "optional_type" && p.len() == 1 => (&p[0], true),
            other => (other, false),
        }
    }

    /// `IsExactType` / `IsEquivalentType` (the latter ignores type-parameter names).
    pub fn is_same(&self, other: &Type, check_param_names: bool) -> bool {
        if self.kind() != other.kind() {
            return false;
        }
        let (p1, p2) = (self.params(), other.params());
        if p1.len() != p2.len() {
            return false;
        }
        if (check_param_names || self.kind() != Kind::TypeParam)
            && self.type_name() != other.type_name()
        {
            return false;
        }
        p1.iter()
            .zip(p2.iter())
            .all(|(a, b)| a.is_same(b, check_param_names))
    }

    pub fn is_exact(&self, other: &Type) -> bool {
        self.is_same(other, true)
    }

    pub fn is_equivalent(&self, other: &Type) -> bool {
        self.is_same(other, false)
    }

    /// The runtime-type notion of assignability (`Type.IsAssignableType`).
    pub fn is_assignable_type(&self, from: &Type) -> bool {
        if let Type::Wrapper(p) = self {
            return self == from || from.kind() == Kind::Null || p.is_assignable_type(from);
        }
        if self == from || matches!(self, Type::Dyn | Type::Any | Type::TypeParam(_)) {
            return true;
        }
        let (p1, p2) = (self.params(), from.params());
        if self.kind() != from.kind()
            || self.type_name() != from.type_name()
            || p1.len() != p2.len()
        {
            return false;
        }
        p1.iter()
            .zip(p2.iter())
            .all(|(a, b)| a.is_assignable_type(b))
    }

    /// Every type parameter mentioned.
    pub fn collect_params(&self, out: &mut Vec<String>) {
        match self {
            Type::TypeParam(n) => {
                if !out.contains(n) {
                    out.push(n.clone());
                }
            }
            _ => {
                for p in self.params() {
                    p.collect_params(out);
                }
            }
        }
    }
}

/// `FormatCELType`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Any => f.write_str("any"),
            Type::Duration => f.write_str("duration"),
            Type::Error => f.write_str("!error!"),
            Type::Null => f.write_str("null"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::TypeParam(n) => f.write_str(n),
            Type::Wrapper(p) => write!(f, "wrapper({p})"),
            Type::Opaque(n, ps) if n == "function" && !ps.is_empty() => {
                write!(f, "{}", format_function(Some(&ps[0]), &ps[1..], false))
            }
            _ => {
                let ps = self.params();
                if ps.is_empty() {
                    return f.write_str(self.type_name());
                }
                write!(f, "{}(", self.type_name())?;
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// `formatFunctionDeclType`: `(int, bool)`, `string.(int)`, with ` -> result`.
pub fn format_function(result: Option<&Type>, args: &[Type], is_instance: bool) -> String {
    let mut s = String::new();
    let mut args = args;
    if is_instance && !args.is_empty() {
        s.push_str(&args[0].to_string());
        s.push('.');
        args = &args[1..];
    }
    s.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&a.to_string());
    }
    s.push(')');
    if let Some(r) = result {
        s.push_str(" -> ");
        s.push_str(&r.to_string());
    }
    s
}

/// Type-parameter substitutions found while checking (`checker.mapping`).
///
/// cel-go tries each assignment on a copy of the mapping and keeps the copy on success;
/// here the assignment writes in place and a trail of the overwritten entries undoes a
/// failed one (copying the whole mapping at every overload tried made checking
/// quadratic in the number of type variables of an expression).
#[derive(Clone, Debug, Default)]
pub struct Mapping {
    /// Type parameter name → its substitution.
    map: HashMap<String, Type>,
    /// During an assignment: each key written and the value it replaced.
    trail: Vec<(String, Option<Type>)>,
}

impl Mapping {
    pub fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::TypeParam(name) => self.map.get(name.as_str()),
            _ => None,
        }
    }

    fn add(&mut self, from: &Type, to: Type) {
        // Substitutions are only ever made for type parameters.
        let Type::TypeParam(name) = from else {
            return;
        };
        let previous = self.map.insert(name.clone(), to);
        self.trail.push((name.clone(), previous));
    }

    /// Runs one assignment: keeps its substitutions when it succeeds, else restores the
    /// mapping as it was.
    fn transaction(&mut self, assign: impl FnOnce(&mut Mapping) -> bool) -> bool {
        debug_assert!(self.trail.is_empty(), "assignments do not nest");
        let ok = assign(self);
        let trail = std::mem::take(&mut self.trail);
        if !ok {
            for (key, previous) in trail.into_iter().rev() {
                match previous {
                    Some(v) => self.map.insert(key, v),
                    None => self.map.remove(&key),
                };
            }
        }
        ok
    }
}

/// `isEqualOrLessSpecific`.
fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if t1.is_dyn() || t1.kind() == Kind::TypeParam {
        return true;
    }
    if t2.is_dyn() || t2.kind() == Kind::TypeParam {
        return false;
    }
    if t1.kind() != t2.kind() {
        return false;
    }
    match (t1, t2) {
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1
                    .iter()
                    .zip(p2)
                    .all(|(a, b)| is_equal_or_less_specific(a, b))
        }
        (Type::List(a), Type::List(b)) => is_equal_or_less_specific(a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            is_equal_or_less_specific(k1, k2) && is_equal_or_less_specific(v1, v2)
        }
        (Type::Type(_), Type::Type(_)) => true,
        _ => t1.is_exact(t2),
    }
}

/// `mostGeneral`.
pub fn most_general(t1: &Type, t2: &Type) -> Type {
    if is_equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if t.is_exact(within) {
        return false;
    }
    match within {
        Type::TypeParam(_) => match m.find(within) {
            None => true,
            Some(sub) => not_referenced_in(m, t, &sub.clone()),
        },
        Type::Opaque(..) | Type::List(_) | Type::Map(..) | Type::Type(_) => within
            .params()
            .into_iter()
            .all(|p| not_referenced_in(m, t, p)),
        _ => true,
    }
}

fn is_valid_type_substitution(m: &mut Mapping, t1: &Type, t2: &Type) -> (bool, bool) {
    if t1.kind() == t2.kind() && t1.is_exact(t2) {
        return (true, true);
    }
    if let Some(t2_sub) = m.find(t2).cloned() {
        if t1.kind() == t2_sub.kind() && t1.is_exact(&t2_sub) {
            return (true, true);
        }
        if internal_is_assignable(m, t1, &t2_sub) {
            let t2_new = most_general(t1, &t2_sub);
            if not_referenced_in(m, t2, &t2_new) {
                m.add(t2, t2_new);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.add(t2, t1.clone());
        return (true, false);
    }
    (false, false)
}

fn is_legacy_nullable(t: &Type) -> bool {
    matches!(
        t.kind(),
        Kind::Opaque | Kind::Struct | Kind::Any | Kind::Duration | Kind::Timestamp
    )
}

fn internal_is_assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    let (k1, k2) = (t1.kind(), t2.kind());
    if k2 == Kind::TypeParam {
        let (valid, has_sub) = is_valid_type_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if k1 == Kind::TypeParam {
        let (valid, _) = is_valid_type_substitution(m, t2, t1);
        return valid;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    if k1 == Kind::Null {
        return is_legacy_nullable(t2) || t2.is_assignable_type(&Type::Null);
    }
    if k2 == Kind::Null {
        return is_legacy_nullable(t1) || t1.is_assignable_type(&Type::Null);
    }
    match k1 {
        Kind::Bool
        | Kind::Bytes
        | Kind::Double
        | Kind::Int
        | Kind::String
        | Kind::Uint
        | Kind::Any
        | Kind::Duration
        | Kind::Timestamp
        | Kind::Struct => t2.is_assignable_type(t1),
        Kind::Type => k2 == Kind::Type,
        Kind::Opaque | Kind::List | Kind::Map => {
            let (p1, p2) = (t1.params(), t2.params());
            k1 == k2
                && t1.type_name() == t2.type_name()
                && p1.len() == p2.len()
                && p1
                    .iter()
                    .zip(p2.iter())
                    .all(|(a, b)| internal_is_assignable(m, a, b))
        }
        _ => false,
    }
}

/// `isAssignable`: whether `t1` is assignable to `t2`; on success `m` holds the new
/// substitutions, on failure it is unchanged.
pub fn is_assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    m.transaction(|m| internal_is_assignable(m, t1, t2))
}

/// `isAssignableList`: [`is_assignable`] for each pair, all or nothing.
pub fn is_assignable_list(m: &mut Mapping, l1: &[Type], l2: &[Type]) -> bool {
    if l1.len() != l2.len() {
        return false;
    }
    m.transaction(|m| {
        l1.iter()
            .zip(l2)
            .all(|(a, b)| internal_is_assignable(m, a, b))
    })
}

/// `substitute`: replaces bound type parameters (and, when `to_dyn`, unbound ones
/// with `dyn`).
pub fn substitute(m: &Mapping, t: &Type, to_dyn: bool) -> Type {
    substitute_depth(m, t, to_dyn, 0)
}

fn substitute_depth(m: &Mapping, t: &Type, to_dyn: bool, depth: usize) -> Type {
    if depth > 256 {
        return Type::Dyn;
    }
    if let Some(sub) = m.find(t) {
        return substitute_depth(m, &sub.clone(), to_dyn, depth + 1);
    }
    match t {
        Type::TypeParam(_) if to_dyn => Type::Dyn,
        Type::Opaque(..) | Type::List(_) | Type::Map(..) | Type::Type(Some(_)) => t.with_params(
            t.params()
                .into_iter()
                .map(|p| substitute_depth(m, p, to_dyn, depth + 1))
                .collect(),
        ),
        _ => t.clone(),
    }
}

/// Parses the compact signature syntax of our declaration tables:
/// `int`, `list(A)`, `map(K, V)`, `optional_type(T)`, `type(A)`, `net.IP`,
/// `kubernetes.Quantity`. Single upper-case letters are type parameters.
pub fn parse_type(s: &str) -> Type {
    let s = s.trim();
    if let Some(open) = s.find('(') {
        let name = &s[..open];
        let inner = &s[open + 1..s.len() - 1];
        let params: Vec<Type> = split_top(inner).into_iter().map(parse_type).collect();
        return match name {
            "list" => Type::list(params.into_iter().next().unwrap_or(Type::Dyn)),
            "map" => {
                let mut it = params.into_iter();
                let k = it.next().unwrap_or(Type::Dyn);
                let v = it.next().unwrap_or(Type::Dyn);
                Type::map(k, v)
            }
            "type" => Type::type_of(params.into_iter().next().unwrap_or(Type::Dyn)),
            other => Type::Opaque(other.to_string(), params),
        };
    }
    match s {
        "any" => Type::Any,
        "bool" => Type::Bool,
        "bytes" => Type::Bytes,
        "double" => Type::Double,
        "duration" => Type::Duration,
        "dyn" => Type::Dyn,
        "int" => Type::Int,
        "null" => Type::Null,
        "string" => Type::String,
        "timestamp" => Type::Timestamp,
        "uint" => Type::Uint,
        "type" => Type::Type(None),
        "net.IP" | "net.CIDR" => Type::Opaque(s.to_string(), vec![]),
        _ if s.len() == 1 && s.chars().all(|c| c.is_ascii_uppercase()) => Type::param(s),
        _ => Type::Object(s.to_string()),
    }
}

/// Splits on commas not nested in parentheses.
pub fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_cel_go() {
        assert_eq!(
            Type::map(Type::String, Type::list(Type::Int)).to_string(),
            "map(string, list(int))"
        );
        assert_eq!(
            Type::optional(Type::Timestamp).to_string(),
            "optional_type(timestamp)"
        );
        assert_eq!(Type::type_of(Type::Int).to_string(), "type(int)");
        assert_eq!(Type::Null.to_string(), "null");
        assert_eq!(Type::Error.to_string(), "!error!");
        assert_eq!(parse_type("net.IP").to_string(), "net.IP");
        assert_eq!(
            format_function(None, &[Type::String, Type::Int], true),
            "string.(int)"
        );
    }

    #[test]
    fn type_params_bind() {
        let mut m = Mapping::default();
        let a = Type::param("A");
        let b = Type::param("B");
        assert!(is_assignable_list(
            &mut m,
            &[Type::Int, Type::Int],
            &[a.clone(), a.clone()]
        ));
        assert_eq!(substitute(&m, &a, false), Type::Int);
        assert!(!is_assignable_list(
            &mut m,
            &[Type::Int, Type::Bool],
            &[a.clone(), a.clone()]
        ));
        // A failed assignment leaves no substitution behind, even for the pairs that
        // matched before the failing one.
        assert!(!is_assignable_list(
            &mut m,
            &[Type::String, Type::Bool],
            &[b.clone(), a.clone()]
        ));
        assert_eq!(substitute(&m, &b, false), b);
        assert_eq!(substitute(&m, &a, false), Type::Int);
    }
}
