//! The Kubernetes CEL environment: which functions, overloads, macros and syntax
//! exist for a given Kubernetes version, declared exactly as the API server declares
//! them (apiserver `pkg/cel/environment/base.go`, the cel-go standard library and
//! extensions at the server's versions, and the Kubernetes libraries).
//!
//! Rules of a new CRD are compiled with the server's "new expressions" environment at
//! its compatibility version, which is one minor version below the server's own
//! (`DefaultCompatibilityVersion`): a 1.31 server compiles with the 1.30 feature set,
//! which is why `isCIDR` (introduced at 1.30) needs a 1.31 cluster.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use super::parse::ParseOptions;
use super::types::{Type, parse_type, split_top};

/// A Kubernetes minor version (`1.x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub major: u32,
    pub minor: u32,
}

impl KubeVersion {
    pub const OLDEST: KubeVersion = KubeVersion::new(1, 25);
    pub const NEWEST: KubeVersion = KubeVersion::new(1, 36);

    pub const fn new(major: u32, minor: u32) -> Self {
        KubeVersion { major, minor }
    }

    /// Parses `1.31` (or `v1.31`, `1.31.2`).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim().trim_start_matches('v');
        let mut it = s.split('.');
        let major = it.next()?.parse().ok()?;
        let minor = it.next()?.parse().ok()?;
        Some(KubeVersion { major, minor })
    }

    /// The compatibility version whose CEL features a server of this version enables
    /// for new expressions.
    pub fn compatibility(self) -> KubeVersion {
        KubeVersion::new(self.major, self.minor.saturating_sub(1))
    }

    fn at_least(self, minor: u32) -> bool {
        self.major > 1 || self.minor >= minor
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::NEWEST
    }
}

impl std::fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[derive(Clone, Debug)]
pub struct Overload {
    pub id: String,
    /// Called as `target.f(args)`; `args[0]` is the target type.
    pub member: bool,
    pub args: Vec<Type>,
    pub result: Type,
    pub type_params: Vec<String>,
}

impl Overload {
    pub fn new(id: &str, member: bool, args: Vec<Type>, result: Type) -> Self {
        let mut type_params = Vec::new();
        for a in &args {
            a.collect_params(&mut type_params);
        }
        result.collect_params(&mut type_params);
        Overload {
            id: id.to_string(),
            member,
            args,
            result,
            type_params,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub overloads: Vec<Overload>,
}

/// Which optional features an environment has (for the interpreter and cost model).
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    pub cross_type_numeric_comparisons: bool,
    pub optional_types: bool,
    /// Duration/timestamp/regex literal and homogeneous aggregate validators.
    pub extended_validations: bool,
    pub strings_version: u32,
    pub sets: bool,
    pub ip_cidr: bool,
    pub quantity: bool,
    pub format: bool,
    pub two_var_comprehensions: bool,
    pub semver: bool,
    pub ext_lists: bool,
}

/// Functions and identifiers of one environment, shared read-only.
#[derive(Clone, Debug)]
pub struct Env {
    pub version: KubeVersion,
    pub features: Features,
    functions: HashMap<String, Function>,
    idents: HashMap<String, Type>,
    disabled: HashSet<String>,
}

impl Env {
    /// The environment the server compiles new CRD rules with, for a server of
    /// `server_version` (cached).
    pub fn for_server(server_version: KubeVersion) -> Arc<Env> {
        Env::for_compatibility(server_version.compatibility())
    }

    /// The environment at a compatibility version (cached).
    pub fn for_compatibility(version: KubeVersion) -> Arc<Env> {
        static CACHE: OnceLock<std::sync::Mutex<HashMap<KubeVersion, Arc<Env>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let mut guard = match cache.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        guard
            .entry(version)
            .or_insert_with(|| Arc::new(Env::build(version)))
            .clone()
    }

    pub fn parse_options(&self) -> ParseOptions {
        ParseOptions {
            optional_syntax: self.features.optional_types,
            two_var_comprehensions: self.features.two_var_comprehensions,
            sort_by: self.features.ext_lists,
        }
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }

    pub fn ident(&self, name: &str) -> Option<&Type> {
        self.idents.get(name)
    }

    /// Declares a function (merging overloads with an existing one); for tests and
    /// embedders that extend the environment.
    pub fn add_function(&mut self, function: Function) {
        let existing = self
            .functions
            .entry(function.name.clone())
            .or_insert_with(|| Function {
                name: function.name.clone(),
                overloads: Vec::new(),
            });
        for o in function.overloads {
            if !existing.overloads.iter().any(|x| x.id == o.id) {
                existing.overloads.push(o);
            }
        }
    }

    /// Builds an overload from its signature text (`(int, int) -> int`,
    /// `string.(string) -> bool`).
    pub fn overload(id: &str, signature: &str) -> Overload {
        parse_signature(id, signature)
    }

    pub fn is_overload_disabled(&self, id: &str) -> bool {
        self.disabled.contains(id)
    }

    fn build(v: KubeVersion) -> Env {
        let mut env = Env {
            version: v,
            features: Features::default(),
            functions: HashMap::new(),
            idents: HashMap::new(),
            disabled: HashSet::new(),
        };
        for t in [
            "bool",
            "bytes",
            "double",
            "duration",
            "int",
            "list(A)",
            "map(A, B)",
            "null",
            "string",
            "timestamp",
            "type",
            "uint",
        ] {
            let ty = parse_type(t);
            env.idents
                .insert(ty.type_name().to_string(), Type::type_of(ty));
        }
        env.declare(STANDARD);
        let library_type = |env: &mut Env, name: &str, opaque: bool| {
            let t = if opaque {
                Type::Opaque(name.to_string(), vec![])
            } else {
                Type::Object(name.to_string())
            };
            env.idents.insert(name.to_string(), Type::type_of(t));
        };
        // The object types of the URL, quantity, format and semver libraries have no
        // type name the server's checker resolves (`kubernetes.URL` is an undeclared
        // reference there); the opaque IP and CIDR types do.
        if v.at_least(30) {
            library_type(&mut env, "net.IP", true);
            library_type(&mut env, "net.CIDR", true);
        }
        // Names the Kubernetes type provider and the protobuf registry resolve for the
        // checker, although the program planner then refuses them
        // (`crate::cel::plan::UNPLANNABLE_TYPE_IDENTS`).
        for (name, t) in [
            ("timestamp", "timestamp"),
            ("duration", "duration"),
            ("google.protobuf.Any", "any"),
            ("google.protobuf.Value", "dyn"),
            ("google.protobuf.Struct", "map(string, dyn)"),
            ("google.protobuf.ListValue", "list(dyn)"),
        ] {
            env.idents
                .insert(name.to_string(), Type::type_of(parse_type(t)));
        }
        // The other protobuf well-known messages of cel-go's registry: wrappers
        // (`wrapper(int)`), Duration, Timestamp and Empty.
        for (name, t) in super::checker::well_known_type_idents() {
            env.idents.insert(name.to_string(), Type::type_of(t));
        }
        env.declare(URLS);
        env.declare(REGEX);
        env.declare(K8S_LISTS);
        if v.at_least(27) {
            env.declare(AUTHZ);
        }
        if v.at_least(28) {
            env.features.cross_type_numeric_comparisons = true;
            env.features.optional_types = true;
            env.features.quantity = true;
            env.declare(OPTIONAL);
            env.declare(QUANTITY);
            env.idents.insert(
                "optional_type".into(),
                Type::type_of(Type::optional(Type::param("A"))),
            );
        } else {
            for f in ["_<_", "_<=_", "_>_", "_>=_"] {
                if let Some(func) = env.functions.get(f) {
                    for o in &func.overloads {
                        if o.args[0] != o.args[1] {
                            env.disabled.insert(o.id.clone());
                        }
                    }
                }
            }
        }
        if v.at_least(29) {
            env.features.extended_validations = true;
            env.features.strings_version = 2;
            env.features.sets = true;
            env.declare(STRINGS_V0);
            env.declare(STRINGS_V2);
            env.declare(SETS);
        } else {
            env.declare(STRINGS_V0);
        }
        if v.at_least(30) {
            env.features.ip_cidr = true;
            env.declare(IP);
            env.declare(CIDR);
        }
        if v.at_least(31) {
            env.features.format = true;
            env.declare(FORMAT);
            env.declare(AUTHZ_SELECTORS);
        }
        if v.at_least(32) {
            env.features.two_var_comprehensions = true;
            env.declare(TWO_VAR);
        }
        if v.at_least(33) {
            env.features.semver = true;
            env.declare(SEMVER);
        }
        if v.at_least(34) {
            env.features.ext_lists = true;
            env.declare(EXT_LISTS);
        }
        env
    }

    fn declare(&mut self, table: &[(&str, &[(&str, &str)])]) {
        for (name, overloads) in table {
            let func = self
                .functions
                .entry(name.to_string())
                .or_insert_with(|| Function {
                    name: name.to_string(),
                    overloads: Vec::new(),
                });
            for (id, sig) in overloads.iter() {
                if func.overloads.iter().any(|o| o.id == *id) {
                    continue;
                }
                func.overloads.push(parse_signature(id, sig));
            }
        }
    }
}

/// Parses `(int, int) -> int` or `string.(string) -> bool`.
fn parse_signature(id: &str, sig: &str) -> Overload {
    let (lhs, result) = sig.rsplit_once("->").unwrap_or((sig, "dyn"));
    let lhs = lhs.trim();
    let mut args = Vec::new();
    let member;
    let params_text;
    if lhs.starts_with('(') {
        member = false;
        params_text = &lhs[1..lhs.len() - 1];
    } else {
        member = true;
        // The receiver ends at the last `.(` outside parentheses.
        let bytes = lhs.as_bytes();
        let mut depth = 0i32;
        let mut split = None;
        for i in 0..bytes.len() {
            match bytes[i] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'.' if depth == 0 && bytes.get(i + 1) == Some(&b'(') => split = Some(i),
                _ => {}
            }
        }
        let at = split.unwrap_or(0);
        args.push(parse_type(&lhs[..at]));
        params_text = &lhs[at + 2..lhs.len() - 1];
    }
    for p in split_top(params_text) {
        args.push(parse_type(p));
    }
    let result = parse_type(result);
    let mut type_params = Vec::new();
    for a in &args {
        a.collect_params(&mut type_params);
    }
    result.collect_params(&mut type_params);
    Overload {
        id: id.to_string(),
        member,
        args,
        result,
        type_params,
    }
}

/// The ordered comparison overloads (same type, then cross-type numeric).
macro_rules! cmp_overloads {
    ($p:literal) => {
        [
            (concat!($p, "_bool"), "(bool, bool) -> bool"),
            (concat!($p, "_int64"), "(int, int) -> bool"),
            (concat!($p, "_int64_double"), "(int, double) -> bool"),
            (concat!($p, "_int64_uint64"), "(int, uint) -> bool"),
            (concat!($p, "_uint64"), "(uint, uint) -> bool"),
            (concat!($p, "_uint64_double"), "(uint, double) -> bool"),
            (concat!($p, "_uint64_int64"), "(uint, int) -> bool"),
            (concat!($p, "_double"), "(double, double) -> bool"),
            (concat!($p, "_double_int64"), "(double, int) -> bool"),
            (concat!($p, "_double_uint64"), "(double, uint) -> bool"),
            (concat!($p, "_string"), "(string, string) -> bool"),
            (concat!($p, "_bytes"), "(bytes, bytes) -> bool"),
            (concat!($p, "_timestamp"), "(timestamp, timestamp) -> bool"),
            (concat!($p, "_duration"), "(duration, duration) -> bool"),
        ]
    };
}

macro_rules! time_overloads {
    ($ts:literal) => {
        [
            ($ts, "timestamp.() -> int"),
            (concat!($ts, "_with_tz"), "timestamp.(string) -> int"),
        ]
    };
    ($ts:literal, $d:literal) => {
        [
            ($ts, "timestamp.() -> int"),
            (concat!($ts, "_with_tz"), "timestamp.(string) -> int"),
            ($d, "duration.() -> int"),
        ]
    };
}

type Table = &'static [(&'static str, &'static [(&'static str, &'static str)])];

const STANDARD: Table = &[
    ("_?_:_", &[("conditional", "(bool, A, A) -> A")]),
    ("_&&_", &[("logical_and", "(bool, bool) -> bool")]),
    ("_||_", &[("logical_or", "(bool, bool) -> bool")]),
    ("!_", &[("logical_not", "(bool) -> bool")]),
    (
        "@not_strictly_false",
        &[("not_strictly_false", "(bool) -> bool")],
    ),
    ("_==_", &[("equals", "(A, A) -> bool")]),
    ("_!=_", &[("not_equals", "(A, A) -> bool")]),
    (
        "_+_",
        &[
            ("add_bytes", "(bytes, bytes) -> bytes"),
            ("add_double", "(double, double) -> double"),
            ("add_duration_duration", "(duration, duration) -> duration"),
            (
                "add_duration_timestamp",
                "(duration, timestamp) -> timestamp",
            ),
            (
                "add_timestamp_duration",
                "(timestamp, duration) -> timestamp",
            ),
            ("add_int64", "(int, int) -> int"),
            ("add_list", "(list(A), list(A)) -> list(A)"),
            ("add_string", "(string, string) -> string"),
            ("add_uint64", "(uint, uint) -> uint"),
        ],
    ),
    (
        "_/_",
        &[
            ("divide_double", "(double, double) -> double"),
            ("divide_int64", "(int, int) -> int"),
            ("divide_uint64", "(uint, uint) -> uint"),
        ],
    ),
    (
        "_%_",
        &[
            ("modulo_int64", "(int, int) -> int"),
            ("modulo_uint64", "(uint, uint) -> uint"),
        ],
    ),
    (
        "_*_",
        &[
            ("multiply_double", "(double, double) -> double"),
            ("multiply_int64", "(int, int) -> int"),
            ("multiply_uint64", "(uint, uint) -> uint"),
        ],
    ),
    (
        "-_",
        &[
            ("negate_double", "(double) -> double"),
            ("negate_int64", "(int) -> int"),
        ],
    ),
    (
        "_-_",
        &[
            ("subtract_double", "(double, double) -> double"),
            (
                "subtract_duration_duration",
                "(duration, duration) -> duration",
            ),
            ("subtract_int64", "(int, int) -> int"),
            (
                "subtract_timestamp_duration",
                "(timestamp, duration) -> timestamp",
            ),
            (
                "subtract_timestamp_timestamp",
                "(timestamp, timestamp) -> duration",
            ),
            ("subtract_uint64", "(uint, uint) -> uint"),
        ],
    ),
    ("_<_", &cmp_overloads!("less")),
    ("_<=_", &cmp_overloads!("less_equals")),
    ("_>_", &cmp_overloads!("greater")),
    ("_>=_", &cmp_overloads!("greater_equals")),
    (
        "_[_]",
        &[
            ("index_list", "(list(A), int) -> A"),
            ("index_map", "(map(A, B), A) -> B"),
        ],
    ),
    (
        "@in",
        &[
            ("in_list", "(A, list(A)) -> bool"),
            ("in_map", "(A, map(A, B)) -> bool"),
        ],
    ),
    (
        "size",
        &[
            ("size_bytes", "(bytes) -> int"),
            ("bytes_size", "bytes.() -> int"),
            ("size_list", "(list(A)) -> int"),
            ("list_size", "list(A).() -> int"),
            ("size_map", "(map(A, B)) -> int"),
            ("map_size", "map(A, B).() -> int"),
            ("size_string", "(string) -> int"),
            ("string_size", "string.() -> int"),
        ],
    ),
    ("type", &[("type", "(A) -> type(A)")]),
    (
        "bool",
        &[
            ("bool_to_bool", "(bool) -> bool"),
            ("string_to_bool", "(string) -> bool"),
        ],
    ),
    (
        "bytes",
        &[
            ("bytes_to_bytes", "(bytes) -> bytes"),
            ("string_to_bytes", "(string) -> bytes"),
        ],
    ),
    (
        "double",
        &[
            ("double_to_double", "(double) -> double"),
            ("int64_to_double", "(int) -> double"),
            ("string_to_double", "(string) -> double"),
            ("uint64_to_double", "(uint) -> double"),
        ],
    ),
    (
        "duration",
        &[
            ("duration_to_duration", "(duration) -> duration"),
            ("int64_to_duration", "(int) -> duration"),
            ("string_to_duration", "(string) -> duration"),
        ],
    ),
    ("dyn", &[("to_dyn", "(A) -> dyn")]),
    (
        "int",
        &[
            ("int64_to_int64", "(int) -> int"),
            ("double_to_int64", "(double) -> int"),
            ("duration_to_int64", "(duration) -> int"),
            ("string_to_int64", "(string) -> int"),
            ("timestamp_to_int64", "(timestamp) -> int"),
            ("uint64_to_int64", "(uint) -> int"),
        ],
    ),
    (
        "string",
        &[
            ("string_to_string", "(string) -> string"),
            ("bool_to_string", "(bool) -> string"),
            ("bytes_to_string", "(bytes) -> string"),
            ("double_to_string", "(double) -> string"),
            ("duration_to_string", "(duration) -> string"),
            ("int64_to_string", "(int) -> string"),
            ("timestamp_to_string", "(timestamp) -> string"),
            ("uint64_to_string", "(uint) -> string"),
        ],
    ),
    (
        "timestamp",
        &[
            ("timestamp_to_timestamp", "(timestamp) -> timestamp"),
            ("int64_to_timestamp", "(int) -> timestamp"),
            ("string_to_timestamp", "(string) -> timestamp"),
        ],
    ),
    (
        "uint",
        &[
            ("uint64_to_uint64", "(uint) -> uint"),
            ("double_to_uint64", "(double) -> uint"),
            ("int64_to_uint64", "(int) -> uint"),
            ("string_to_uint64", "(string) -> uint"),
        ],
    ),
    (
        "contains",
        &[("contains_string", "string.(string) -> bool")],
    ),
    (
        "endsWith",
        &[("ends_with_string", "string.(string) -> bool")],
    ),
    (
        "startsWith",
        &[("starts_with_string", "string.(string) -> bool")],
    ),
    (
        "matches",
        &[
            ("matches", "(string, string) -> bool"),
            ("matches_string", "string.(string) -> bool"),
        ],
    ),
    ("getFullYear", &time_overloads!("timestamp_to_year")),
    ("getMonth", &time_overloads!("timestamp_to_month")),
    ("getDayOfYear", &time_overloads!("timestamp_to_day_of_year")),
    (
        "getDayOfMonth",
        &time_overloads!("timestamp_to_day_of_month"),
    ),
    (
        "getDate",
        &time_overloads!("timestamp_to_day_of_month_1_based"),
    ),
    ("getDayOfWeek", &time_overloads!("timestamp_to_day_of_week")),
    (
        "getHours",
        &time_overloads!("timestamp_to_hours", "duration_to_hours"),
    ),
    (
        "getMinutes",
        &time_overloads!("timestamp_to_minutes", "duration_to_minutes"),
    ),
    (
        "getSeconds",
        &time_overloads!("timestamp_to_seconds", "duration_to_seconds"),
    ),
    (
        "getMilliseconds",
        &time_overloads!("timestamp_to_milliseconds", "duration_to_milliseconds"),
    ),
];

const OPTIONAL: Table = &[
    ("optional.of", &[("optional_of", "(V) -> optional_type(V)")]),
    (
        "optional.ofNonZeroValue",
        &[("optional_ofNonZeroValue", "(V) -> optional_type(V)")],
    ),
    (
        "optional.none",
        &[("optional_none", "() -> optional_type(V)")],
    ),
    ("value", &[("optional_value", "optional_type(V).() -> V")]),
    (
        "hasValue",
        &[("optional_hasValue", "optional_type(V).() -> bool")],
    ),
    (
        "or",
        &[(
            "optional_or_optional",
            "optional_type(V).(optional_type(V)) -> optional_type(V)",
        )],
    ),
    (
        "orValue",
        &[("optional_orValue_value", "optional_type(V).(V) -> V")],
    ),
    (
        "_?._",
        &[("select_optional_field", "(dyn, string) -> optional_type(V)")],
    ),
    (
        "_[?_]",
        &[
            (
                "list_optindex_optional_int",
                "(list(V), int) -> optional_type(V)",
            ),
            (
                "optional_list_optindex_optional_int",
                "(optional_type(list(V)), int) -> optional_type(V)",
            ),
            (
                "map_optindex_optional_value",
                "(map(K, V), K) -> optional_type(V)",
            ),
            (
                "optional_map_optindex_optional_value",
                "(optional_type(map(K, V)), K) -> optional_type(V)",
            ),
        ],
    ),
    (
        "_[_]",
        &[
            (
                "optional_list_index_int",
                "(optional_type(list(V)), int) -> optional_type(V)",
            ),
            (
                "optional_map_index_value",
                "(optional_type(map(K, V)), K) -> optional_type(V)",
            ),
        ],
    ),
    ("last", &[("list_last", "list(V).() -> optional_type(V)")]),
    ("first", &[("list_first", "list(V).() -> optional_type(V)")]),
    (
        "optional.unwrap",
        &[("optional_unwrap", "(list(optional_type(V))) -> list(V)")],
    ),
    (
        "unwrapOpt",
        &[("optional_unwrapOpt", "list(optional_type(V)).() -> list(V)")],
    ),
];

const STRINGS_V0: Table = &[
    (
        "charAt",
        &[("string_char_at_int", "string.(int) -> string")],
    ),
    (
        "indexOf",
        &[
            ("string_index_of_string", "string.(string) -> int"),
            ("string_index_of_string_int", "string.(string, int) -> int"),
        ],
    ),
    (
        "lastIndexOf",
        &[
            ("string_last_index_of_string", "string.(string) -> int"),
            (
                "string_last_index_of_string_int",
                "string.(string, int) -> int",
            ),
        ],
    ),
    (
        "lowerAscii",
        &[("string_lower_ascii", "string.() -> string")],
    ),
    (
        "replace",
        &[
            (
                "string_replace_string_string",
                "string.(string, string) -> string",
            ),
            (
                "string_replace_string_string_int",
                "string.(string, string, int) -> string",
            ),
        ],
    ),
    (
        "split",
        &[
            ("string_split_string", "string.(string) -> list(string)"),
            (
                "string_split_string_int",
                "string.(string, int) -> list(string)",
            ),
        ],
    ),
    (
        "substring",
        &[
            ("string_substring_int", "string.(int) -> string"),
            ("string_substring_int_int", "string.(int, int) -> string"),
        ],
    ),
    ("trim", &[("string_trim", "string.() -> string")]),
    (
        "upperAscii",
        &[("string_upper_ascii", "string.() -> string")],
    ),
];

const STRINGS_V2: Table = &[
    (
        "format",
        &[("string_format", "string.(list(dyn)) -> string")],
    ),
    ("strings.quote", &[("strings_quote", "(string) -> string")]),
    (
        "join",
        &[
            ("list_join", "list(string).() -> string"),
            ("list_join_string", "list(string).(string) -> string"),
        ],
    ),
];

const SETS: Table = &[
    (
        "sets.contains",
        &[("list_sets_contains_list", "(list(T), list(T)) -> bool")],
    ),
    (
        "sets.equivalent",
        &[("list_sets_equivalent_list", "(list(T), list(T)) -> bool")],
    ),
    (
        "sets.intersects",
        &[("list_sets_intersects_list", "(list(T), list(T)) -> bool")],
    ),
];

const TWO_VAR: Table = &[(
    "cel.@mapInsert",
    &[
        ("@mapInsert_map_key_value", "(map(K, V), K, V) -> map(K, V)"),
        ("@mapInsert_map_map", "(map(K, V), map(K, V)) -> map(K, V)"),
    ],
)];

const EXT_LISTS: Table = &[
    ("slice", &[("list_slice", "list(T).(int, int) -> list(T)")]),
    (
        "flatten",
        &[
            ("list_flatten", "list(list(T)).() -> list(T)"),
            ("list_flatten_int", "list(dyn).(int) -> list(dyn)"),
        ],
    ),
    (
        "sort",
        &[
            ("list_int_sort", "list(int).() -> list(int)"),
            ("list_uint_sort", "list(uint).() -> list(uint)"),
            ("list_double_sort", "list(double).() -> list(double)"),
            ("list_bool_sort", "list(bool).() -> list(bool)"),
            (
                "list_google.protobuf.Duration_sort",
                "list(duration).() -> list(duration)",
            ),
            (
                "list_google.protobuf.Timestamp_sort",
                "list(timestamp).() -> list(timestamp)",
            ),
            ("list_string_sort", "list(string).() -> list(string)"),
            ("list_bytes_sort", "list(bytes).() -> list(bytes)"),
        ],
    ),
    (
        "@sortByAssociatedKeys",
        &[
            (
                "list_int_sortByAssociatedKeys",
                "list(T).(list(int)) -> list(T)",
            ),
            (
                "list_uint_sortByAssociatedKeys",
                "list(T).(list(uint)) -> list(T)",
            ),
            (
                "list_double_sortByAssociatedKeys",
                "list(T).(list(double)) -> list(T)",
            ),
            (
                "list_bool_sortByAssociatedKeys",
                "list(T).(list(bool)) -> list(T)",
            ),
            (
                "list_google.protobuf.Duration_sortByAssociatedKeys",
                "list(T).(list(duration)) -> list(T)",
            ),
            (
                "list_google.protobuf.Timestamp_sortByAssociatedKeys",
                "list(T).(list(timestamp)) -> list(T)",
            ),
            (
                "list_string_sortByAssociatedKeys",
                "list(T).(list(string)) -> list(T)",
            ),
            (
                "list_bytes_sortByAssociatedKeys",
                "list(T).(list(bytes)) -> list(T)",
            ),
        ],
    ),
    ("lists.range", &[("lists_range", "(int) -> list(int)")]),
    ("reverse", &[("list_reverse", "list(T).() -> list(T)")]),
    ("distinct", &[("list_distinct", "list(T).() -> list(T)")]),
];

const K8S_LISTS: Table = &[
    (
        "isSorted",
        &[
            ("list_int_is_sorted_bool", "list(int).() -> bool"),
            ("list_uint_is_sorted_bool", "list(uint).() -> bool"),
            ("list_double_is_sorted_bool", "list(double).() -> bool"),
            ("list_bool_is_sorted_bool", "list(bool).() -> bool"),
            ("list_duration_is_sorted_bool", "list(duration).() -> bool"),
            (
                "list_timestamp_is_sorted_bool",
                "list(timestamp).() -> bool",
            ),
            ("list_string_is_sorted_bool", "list(string).() -> bool"),
            ("list_bytes_is_sorted_bool", "list(bytes).() -> bool"),
        ],
    ),
    (
        "sum",
        &[
            ("list_int_sum_int", "list(int).() -> int"),
            ("list_uint_sum_uint", "list(uint).() -> uint"),
            ("list_double_sum_double", "list(double).() -> double"),
            (
                "list_duration_sum_duration",
                "list(duration).() -> duration",
            ),
        ],
    ),
    (
        "max",
        &[
            ("list_int_max_int", "list(int).() -> int"),
            ("list_uint_max_uint", "list(uint).() -> uint"),
            ("list_double_max_double", "list(double).() -> double"),
            ("list_bool_max_bool", "list(bool).() -> bool"),
            (
                "list_duration_max_duration",
                "list(duration).() -> duration",
            ),
            (
                "list_timestamp_max_timestamp",
                "list(timestamp).() -> timestamp",
            ),
            ("list_string_max_string", "list(string).() -> string"),
            ("list_bytes_max_bytes", "list(bytes).() -> bytes"),
        ],
    ),
    (
        "min",
        &[
            ("list_int_min_int", "list(int).() -> int"),
            ("list_uint_min_uint", "list(uint).() -> uint"),
            ("list_double_min_double", "list(double).() -> double"),
            ("list_bool_min_bool", "list(bool).() -> bool"),
            (
                "list_duration_min_duration",
                "list(duration).() -> duration",
            ),
            (
                "list_timestamp_min_timestamp",
                "list(timestamp).() -> timestamp",
            ),
            ("list_string_min_string", "list(string).() -> string"),
            ("list_bytes_min_bytes", "list(bytes).() -> bytes"),
        ],
    ),
    ("indexOf", &[("list_a_index_of_int", "list(A).(A) -> int")]),
    (
        "lastIndexOf",
        &[("list_a_last_index_of_int", "list(A).(A) -> int")],
    ),
];

const REGEX: Table = &[
    (
        "find",
        &[("string_find_string", "string.(string) -> string")],
    ),
    (
        "findAll",
        &[
            ("string_find_all_string", "string.(string) -> list(string)"),
            (
                "string_find_all_string_int",
                "string.(string, int) -> list(string)",
            ),
        ],
    ),
];

const URLS: Table = &[
    ("url", &[("string_to_url", "(string) -> kubernetes.URL")]),
    (
        "getScheme",
        &[("url_get_scheme", "kubernetes.URL.() -> string")],
    ),
    (
        "getHost",
        &[("url_get_host", "kubernetes.URL.() -> string")],
    ),
    (
        "getHostname",
        &[("url_get_hostname", "kubernetes.URL.() -> string")],
    ),
    (
        "getPort",
        &[("url_get_port", "kubernetes.URL.() -> string")],
    ),
    (
        "getEscapedPath",
        &[("url_get_escaped_path", "kubernetes.URL.() -> string")],
    ),
    (
        "getQuery",
        &[(
            "url_get_query",
            "kubernetes.URL.() -> map(string, list(string))",
        )],
    ),
    ("isURL", &[("is_url_string", "(string) -> bool")]),
];

const IP: Table = &[
    ("ip", &[("string_to_ip", "(string) -> net.IP")]),
    ("family", &[("ip_family", "net.IP.() -> int")]),
    ("ip.isCanonical", &[("ip_is_canonical", "(string) -> bool")]),
    (
        "isUnspecified",
        &[("ip_is_unspecified", "net.IP.() -> bool")],
    ),
    ("isLoopback", &[("ip_is_loopback", "net.IP.() -> bool")]),
    (
        "isLinkLocalMulticast",
        &[("ip_is_link_local_multicast", "net.IP.() -> bool")],
    ),
    (
        "isLinkLocalUnicast",
        &[("ip_is_link_local_unicast", "net.IP.() -> bool")],
    ),
    (
        "isGlobalUnicast",
        &[("ip_is_global_unicast", "net.IP.() -> bool")],
    ),
    ("isIP", &[("is_ip", "(string) -> bool")]),
    ("string", &[("ip_to_string", "(net.IP) -> string")]),
];

const CIDR: Table = &[
    ("cidr", &[("string_to_cidr", "(string) -> net.CIDR")]),
    (
        "containsIP",
        &[
            ("cidr_contains_ip_string", "net.CIDR.(string) -> bool"),
            ("cidr_contains_ip_ip", "net.CIDR.(net.IP) -> bool"),
        ],
    ),
    (
        "containsCIDR",
        &[
            ("cidr_contains_cidr_string", "net.CIDR.(string) -> bool"),
            ("cidr_contains_cidr", "net.CIDR.(net.CIDR) -> bool"),
        ],
    ),
    ("ip", &[("cidr_ip", "net.CIDR.() -> net.IP")]),
    (
        "prefixLength",
        &[("cidr_prefix_length", "net.CIDR.() -> int")],
    ),
    ("masked", &[("cidr_masked", "net.CIDR.() -> net.CIDR")]),
    ("isCIDR", &[("is_cidr", "(string) -> bool")]),
    ("string", &[("cidr_to_string", "(net.CIDR) -> string")]),
];

const QUANTITY: Table = &[
    (
        "quantity",
        &[("string_to_quantity", "(string) -> kubernetes.Quantity")],
    ),
    ("isQuantity", &[("is_quantity_string", "(string) -> bool")]),
    ("sign", &[("quantity_sign", "(kubernetes.Quantity) -> int")]),
    (
        "isGreaterThan",
        &[(
            "quantity_is_greater_than",
            "kubernetes.Quantity.(kubernetes.Quantity) -> bool",
        )],
    ),
    (
        "isLessThan",
        &[(
            "quantity_is_less_than",
            "kubernetes.Quantity.(kubernetes.Quantity) -> bool",
        )],
    ),
    (
        "compareTo",
        &[(
            "quantity_compare_to",
            "kubernetes.Quantity.(kubernetes.Quantity) -> int",
        )],
    ),
    (
        "asApproximateFloat",
        &[("quantity_get_float", "kubernetes.Quantity.() -> double")],
    ),
    (
        "asInteger",
        &[("quantity_get_int", "kubernetes.Quantity.() -> int")],
    ),
    (
        "isInteger",
        &[("quantity_is_integer", "kubernetes.Quantity.() -> bool")],
    ),
    (
        "add",
        &[
            (
                "quantity_add",
                "kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity",
            ),
            (
                "quantity_add_int",
                "kubernetes.Quantity.(int) -> kubernetes.Quantity",
            ),
        ],
    ),
    (
        "sub",
        &[
            (
                "quantity_sub",
                "kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity",
            ),
            (
                "quantity_sub_int",
                "kubernetes.Quantity.(int) -> kubernetes.Quantity",
            ),
        ],
    ),
];

const FORMAT: Table = &[
    (
        "validate",
        &[(
            "format-validate",
            "kubernetes.NamedFormat.(string) -> optional_type(list(string))",
        )],
    ),
    (
        "format.named",
        &[(
            "format-named",
            "(string) -> optional_type(kubernetes.NamedFormat)",
        )],
    ),
    (
        "format.dns1123Label",
        &[("format.dns1123Label", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.dns1123Subdomain",
        &[("format.dns1123Subdomain", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.dns1035Label",
        &[("format.dns1035Label", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.qualifiedName",
        &[("format.qualifiedName", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.dns1123LabelPrefix",
        &[("format.dns1123LabelPrefix", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.dns1123SubdomainPrefix",
        &[(
            "format.dns1123SubdomainPrefix",
            "() -> kubernetes.NamedFormat",
        )],
    ),
    (
        "format.dns1035LabelPrefix",
        &[("format.dns1035LabelPrefix", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.labelValue",
        &[("format.labelValue", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.uri",
        &[("format.uri", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.uuid",
        &[("format.uuid", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.byte",
        &[("format.byte", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.date",
        &[("format.date", "() -> kubernetes.NamedFormat")],
    ),
    (
        "format.datetime",
        &[("format.datetime", "() -> kubernetes.NamedFormat")],
    ),
];

const SEMVER: Table = &[
    (
        "semver",
        &[
            ("string_to_semver", "(string) -> kubernetes.Semver"),
            (
                "string_bool_to_semver",
                "(string, bool) -> kubernetes.Semver",
            ),
        ],
    ),
    (
        "isSemver",
        &[
            ("is_semver_string", "(string) -> bool"),
            ("is_semver_string_bool", "(string, bool) -> bool"),
        ],
    ),
    (
        "isGreaterThan",
        &[(
            "semver_is_greater_than",
            "kubernetes.Semver.(kubernetes.Semver) -> bool",
        )],
    ),
    (
        "isLessThan",
        &[(
            "semver_is_less_than",
            "kubernetes.Semver.(kubernetes.Semver) -> bool",
        )],
    ),
    (
        "compareTo",
        &[(
            "semver_compare_to",
            "kubernetes.Semver.(kubernetes.Semver) -> int",
        )],
    ),
    ("major", &[("semver_major", "kubernetes.Semver.() -> int")]),
    ("minor", &[("semver_minor", "kubernetes.Semver.() -> int")]),
    ("patch", &[("semver_patch", "kubernetes.Semver.() -> int")]),
];

/// Declared in every Kubernetes environment (the authorizer variable is not, in CRD
/// rules), so these names resolve as functions rather than undeclared references.
const AUTHZ: Table = &[
    (
        "path",
        &[(
            "authorizer_path",
            "kubernetes.authorization.Authorizer.(string) -> kubernetes.authorization.PathCheck",
        )],
    ),
    (
        "group",
        &[(
            "authorizer_group",
            "kubernetes.authorization.Authorizer.(string) -> kubernetes.authorization.GroupCheck",
        )],
    ),
    (
        "serviceAccount",
        &[(
            "authorizer_serviceaccount",
            "kubernetes.authorization.Authorizer.(string, string) -> kubernetes.authorization.Authorizer",
        )],
    ),
    (
        "resource",
        &[(
            "groupcheck_resource",
            "kubernetes.authorization.GroupCheck.(string) -> kubernetes.authorization.ResourceCheck",
        )],
    ),
    (
        "subresource",
        &[(
            "resourcecheck_subresource",
            "kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck",
        )],
    ),
    (
        "namespace",
        &[(
            "resourcecheck_namespace",
            "kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck",
        )],
    ),
    (
        "name",
        &[(
            "resourcecheck_name",
            "kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck",
        )],
    ),
    (
        "check",
        &[
            (
                "pathcheck_check",
                "kubernetes.authorization.PathCheck.(string) -> kubernetes.authorization.Decision",
            ),
            (
                "resourcecheck_check",
                "kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.Decision",
            ),
        ],
    ),
    (
        "errored",
        &[(
            "decision_errored",
            "kubernetes.authorization.Decision.() -> bool",
        )],
    ),
    (
        "error",
        &[(
            "decision_error",
            "kubernetes.authorization.Decision.() -> string",
        )],
    ),
    (
        "allowed",
        &[(
            "decision_allowed",
            "kubernetes.authorization.Decision.() -> bool",
        )],
    ),
    (
        "reason",
        &[(
            "decision_reason",
            "kubernetes.authorization.Decision.() -> string",
        )],
    ),
];

const AUTHZ_SELECTORS: Table = &[
    (
        "fieldSelector",
        &[(
            "authorizer_fieldselector",
            "kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck",
        )],
    ),
    (
        "labelSelector",
        &[(
            "authorizer_labelselector",
            "kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck",
        )],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_parse() {
        let o = parse_signature("x", "list(A).(A) -> int");
        assert!(o.member);
        assert_eq!(o.args, vec![Type::list(Type::param("A")), Type::param("A")]);
        assert_eq!(o.type_params, vec!["A".to_string()]);
        let o = parse_signature("y", "() -> kubernetes.NamedFormat");
        assert!(!o.member && o.args.is_empty());
        let o = parse_signature("z", "kubernetes.Quantity.(int) -> kubernetes.Quantity");
        assert_eq!(o.args[0], Type::Object("kubernetes.Quantity".into()));
    }

    #[test]
    fn versions_gate_libraries() {
        let old = Env::for_server(KubeVersion::new(1, 30));
        assert!(old.function("isCIDR").is_none());
        let new = Env::for_server(KubeVersion::new(1, 31));
        assert!(new.function("isCIDR").is_some());
        assert!(
            Env::for_server(KubeVersion::NEWEST)
                .function("reverse")
                .is_some()
        );
    }
}
