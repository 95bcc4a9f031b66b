//! The static cost of a checked CEL expression, computed as cel-go's `checker.Cost`
//! computes it for the API server (cel-go v0.26 `checker/cost.go`), with the
//! Kubernetes library estimator (apiserver `pkg/cel/library/cost.go`), the cost
//! estimators of the `ext` lists (v3) and sets libraries, `has()` at cost 0
//! (`PresenceTestHasCost(false)`), and sizes looked up in the declared type of the
//! rule's schema node (apiextensions `compilation.go` `sizeEstimator`). Where older
//! servers' releases walk differently, [`CostModel`] says which walk to follow.
//!
//! The result must be the server's number, not an approximation, so this follows the
//! upstream walk node by node, including its quirks: field paths are Go slices that
//! share backing arrays (see [`GoPath`]), the accumulator and inline-literal iteration
//! variables resolve against the root type, and map keys have size 0.

use crate::cel::ast::IdMap;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::super::ast::{Expr, ExprKind, Literal};
use super::super::checker::{CheckedAst, Reference};
use super::super::env::KubeVersion;
use super::super::schema_types::{DeclKind, DeclType, MAX_REQUEST_SIZE_BYTES};
use super::super::types::{Kind, Type};

const SELECT_AND_IDENT_COST: u64 = 1;
const LIST_CREATE_BASE_COST: u64 = 10;
const MAP_CREATE_BASE_COST: u64 = 30;
const STRUCT_CREATE_BASE_COST: u64 = 40;
const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;
/// apiserver `cel.MaxFormatSize` and `cel.MaxNameFormatRegexSize`.
const MAX_FORMAT_SIZE: u64 = 64;
const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;

/// A `[min, max]` range of sizes or costs, saturating at `u64::MAX` like cel-go's
/// `SizeEstimate` / `CostEstimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Range {
    pub min: u64,
    pub max: u64,
}

impl Range {
    pub const UNKNOWN: Range = Range {
        min: 0,
        max: u64::MAX,
    };

    pub const fn fixed(v: u64) -> Range {
        Range { min: v, max: v }
    }

    pub fn plus(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    pub fn multiply(self, o: Range) -> Range {
        Range {
            min: mul_no_overflow(self.min, o.min),
            max: mul_no_overflow(self.max, o.max),
        }
    }

    pub fn factor(self, f: f64) -> Range {
        Range {
            min: multiply_by_cost_factor(self.min, f),
            max: multiply_by_cost_factor(self.max, f),
        }
    }

    pub fn union(self, o: Range) -> Range {
        Range {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

fn mul_no_overflow(x: u64, y: u64) -> u64 {
    x.saturating_mul(y)
}

/// `multiplyByCostFactor`: the product rounded up, saturating.
pub fn multiply_by_cost_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    let max = u64::MAX as f64;
    if xf > 0.0 && y > 0.0 && xf > max / y {
        return u64::MAX;
    }
    let ceil = (xf * y).ceil();
    if ceil >= 18446744073709551616.0 {
        return u64::MAX;
    }
    ceil as u64
}

/// A Go `[]string` as cel-go's coster builds field paths: `append` writes into the
/// shared backing array while there is capacity, so two paths built from the same
/// variable can overwrite each other's last element. The server's estimates depend on
/// this, so it is reproduced (growth as Go's `growslice` for 16-byte elements).
#[derive(Clone, Debug, Default)]
pub struct GoPath {
    arr: Option<Rc<RefCell<Vec<String>>>>,
    len: usize,
    cap: usize,
}

impl GoPath {
    fn nil() -> GoPath {
        GoPath::default()
    }

    fn single(s: &str) -> GoPath {
        GoPath {
            arr: Some(Rc::new(RefCell::new(vec![s.to_string()]))),
            len: 1,
            cap: 1,
        }
    }

    fn is_nil(&self) -> bool {
        self.arr.is_none()
    }

    fn append(&self, s: &str) -> GoPath {
        if let Some(arr) = &self.arr
            && self.len < self.cap
        {
            arr.borrow_mut()[self.len] = s.to_string();
            return GoPath {
                arr: Some(arr.clone()),
                len: self.len + 1,
                cap: self.cap,
            };
        }
        let new_len = self.len + 1;
        let cap = go_grow(self.cap, new_len);
        let mut v: Vec<String> = match &self.arr {
            Some(a) => a.borrow()[..self.len].to_vec(),
            None => Vec::new(),
        };
        v.push(s.to_string());
        v.resize(cap, String::new());
        GoPath {
            arr: Some(Rc::new(RefCell::new(v))),
            len: new_len,
            cap,
        }
    }

    /// The current contents (what Go would read through this slice header now).
    pub fn get(&self) -> Vec<String> {
        match &self.arr {
            Some(a) => a.borrow()[..self.len].to_vec(),
            None => Vec::new(),
        }
    }

    fn first_is(&self, f: impl Fn(&str) -> bool) -> bool {
        match &self.arr {
            Some(a) if self.len > 0 => f(&a.borrow()[0]),
            _ => false,
        }
    }
}

/// Go's `growslice` capacity for 16-byte elements (`nextslicecap` + `roundupsize`).
fn go_grow(old_cap: usize, new_len: usize) -> usize {
    let double = old_cap * 2;
    let mut newcap = if new_len > double {
        new_len
    } else if old_cap < 256 {
        double
    } else {
        let mut c = old_cap;
        while c < new_len {
            c += (c + 3 * 256) >> 2;
        }
        c
    };
    // Malloc size classes up to 32 KiB (runtime/sizeclasses.go).
    const CLASSES: &[usize] = &[
        16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352,
        384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
        2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728,
        10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672,
        32768,
    ];
    let bytes = newcap * 16;
    if let Some(c) = CLASSES.iter().find(|&&c| c >= bytes) {
        newcap = c / 16;
    } else {
        newcap = bytes.div_ceil(8192) * 8192 / 16;
    }
    newcap
}

/// Sizes of a schema node's values (`sizeEstimator.EstimateSize`): the path's first
/// element (the variable) is dropped and the rest is followed from the rule's
/// declared type.
pub struct SizeEstimator<'a> {
    pub root: &'a DeclType,
    /// Whether an int-or-string node's size is the declared one (from its
    /// `maxLength`, Kubernetes 1.34+) rather than a request's longest string.
    pub int_or_string_max_length: bool,
    /// Collects every path that resolved to a schema node, for suggestions.
    pub seen: Option<RefCell<Vec<Vec<String>>>>,
}

impl SizeEstimator<'_> {
    pub fn estimate(&self, path: &[String]) -> Option<Range> {
        let r = self.lookup(path);
        if r.is_some()
            && let Some(seen) = &self.seen
        {
            let mut seen = seen.borrow_mut();
            if !seen.iter().any(|p| p == path) {
                seen.push(path.to_vec());
            }
        }
        r
    }

    fn lookup(&self, path: &[String]) -> Option<Range> {
        if path.is_empty() {
            return None;
        }
        let mut cur = self.root;
        for name in &path[1..] {
            match name.as_str() {
                "@items" | "@values" => match &cur.kind {
                    DeclKind::List(e) | DeclKind::Map(e) => cur = e,
                    _ => return None,
                },
                "@keys" => match &cur.kind {
                    // The key type of every schema map is the plain string type, whose
                    // MaxElements is 0.
                    DeclKind::Map(_) => return_key_size_later(&mut cur),
                    _ => return None,
                },
                field => match cur.field(field) {
                    Some(f) => cur = &f.ty,
                    None => return None,
                },
            }
        }
        // Only int-or-string nodes are declared `dyn`.
        if !self.int_or_string_max_length && matches!(cur.kind, DeclKind::Simple(Type::Dyn)) {
            return Some(Range {
                min: 0,
                max: (MAX_REQUEST_SIZE_BYTES - 2) as u64,
            });
        }
        Some(Range {
            min: 0,
            // Go converts as is: a negative size (maxLength 2^63-1 times 4 wrapped) is
            // a huge one.
            max: cur.max_elements as u64,
        })
    }
}

static STRING_KEY: std::sync::LazyLock<DeclType> =
    std::sync::LazyLock::new(|| DeclType::new(DeclKind::Simple(Type::String), 0, 2));

fn return_key_size_later(cur: &mut &DeclType) {
    *cur = &STRING_KEY;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    List,
    Map,
}

#[derive(Clone, Copy, Debug)]
struct EntrySize {
    container: Container,
    key: Range,
    val: Range,
}

fn entry_union(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize {
        container: a.container,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    })
}

#[derive(Clone, Debug)]
struct LocalVar {
    path: GoPath,
    size: Option<Range>,
    entry: Option<EntrySize>,
}

/// cel-go's `AstNode`: what function estimators see of an argument.
#[derive(Clone, Debug)]
struct Node<'e> {
    path: GoPath,
    ty: Type,
    expr: Option<&'e Expr>,
    derived: Option<Range>,
}

impl Node<'_> {
    fn path(&self) -> Vec<String> {
        self.path.get()
    }
}

struct CallEstimate {
    cost: Range,
    result_size: Option<Range>,
}

fn is_accumulator(name: &str) -> bool {
    name == "__result__" || name == "@result"
}

/// Which cel-go release's cost walk to follow, where releases differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostModel {
    /// cel-go v0.23 (Kubernetes 1.33) made `dyn(x)` transparent: the cost of `x` plus
    /// 1, with `x`'s sizes. Before, it was an ordinary call whose result has no known
    /// size, so `dyn(self.s) == 'a'` or `dyn(self).all(…)` estimate as unbounded.
    pub dyn_is_transparent: bool,
    /// Kubernetes 1.34 sizes an `x-kubernetes-int-or-string` value by its `maxLength`;
    /// before, always as the longest string of a request.
    pub int_or_string_max_length: bool,
    /// cel-go v0.23 (Kubernetes 1.33) tracks iteration and `cel.bind` variables as local
    /// variables carrying a path, a size and entry sizes (of list literals and
    /// comprehension results too). Before, an iteration variable's path was its range's
    /// path plus `@items`/`@keys`, taken at each use, a comprehension's size was its
    /// range's, `cel.bind` was an ordinary comprehension, and nothing had entry sizes.
    pub comprehension_locals: bool,
}

impl CostModel {
    /// cel-go v0.26, the newest servers'.
    pub const NEWEST: CostModel = CostModel {
        dyn_is_transparent: true,
        int_or_string_max_length: true,
        comprehension_locals: true,
    };

    /// The model of a server of `version` (its cel-go release and its own size rules,
    /// whatever environment a rule was compiled with).
    pub fn for_server(version: KubeVersion) -> CostModel {
        CostModel {
            dyn_is_transparent: version >= KubeVersion::new(1, 33),
            int_or_string_max_length: version >= KubeVersion::new(1, 34),
            comprehension_locals: version >= KubeVersion::new(1, 33),
        }
    }
}

/// Estimates the cost of `checked` with sizes from `decl` (the rule node's declared
/// type); `None` for `decl` gives no schema sizes.
pub fn estimate_cost(checked: &CheckedAst, decl: Option<&DeclType>, model: CostModel) -> Range {
    estimate_cost_seen(checked, decl, model, false).0
}

/// Like [`estimate_cost`], also returning the value paths (`self.spec.items.@items`)
/// whose sizes came from the schema (with `record`).
pub fn estimate_cost_seen(
    checked: &CheckedAst,
    decl: Option<&DeclType>,
    model: CostModel,
    record: bool,
) -> (Range, Vec<Vec<String>>) {
    let mut c = Coster {
        checked,
        model,
        iter_ranges: HashMap::new(),
        sizes: decl.map(|root| SizeEstimator {
            root,
            int_or_string_max_length: model.int_or_string_max_length,
            seen: record.then(|| RefCell::new(Vec::new())),
        }),
        paths: IdMap::default(),
        locals: HashMap::new(),
        computed_sizes: IdMap::default(),
        entry_sizes: IdMap::default(),
        presence_test_cost: Range::fixed(0),
        depth: 0,
    };
    let cost = c.cost(&checked.ast.expr);
    let seen = c
        .sizes
        .and_then(|s| s.seen)
        .map(|s| s.into_inner())
        .unwrap_or_default();
    (cost, seen)
}

struct Coster<'a> {
    checked: &'a CheckedAst,
    model: CostModel,
    /// The ranges of the iteration variables in scope, innermost last (cel-go before
    /// v0.23, see [`CostModel::comprehension_locals`]).
    iter_ranges: HashMap<String, Vec<&'a Expr>>,
    sizes: Option<SizeEstimator<'a>>,
    paths: IdMap<GoPath>,
    locals: HashMap<String, Vec<LocalVar>>,
    computed_sizes: IdMap<Range>,
    entry_sizes: IdMap<EntrySize>,
    presence_test_cost: Range,
    depth: usize,
}

impl<'a> Coster<'a> {
    fn ty(&self, e: &Expr) -> Type {
        self.checked.type_of(e.id)
    }

    fn estimate_size(&self, path: &[String]) -> Option<Range> {
        self.sizes.as_ref().and_then(|s| s.estimate(path))
    }

    fn peek(&self, name: &str) -> Option<&LocalVar> {
        self.locals.get(name).and_then(|v| v.last())
    }

    fn push_var(&mut self, name: &str, v: LocalVar) {
        self.locals.entry(name.to_string()).or_default().push(v);
    }

    fn pop_var(&mut self, name: &str) {
        if let Some(v) = self.locals.get_mut(name) {
            v.pop();
        }
    }

    fn get_path(&self, e: &Expr) -> GoPath {
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_else(GoPath::nil)
    }

    fn container_of(&self, entry: Option<EntrySize>, range: &Expr) -> Option<Container> {
        match entry {
            Some(e) => Some(e.container),
            None => match self.ty(range).kind() {
                Kind::List => Some(Container::List),
                Kind::Map => Some(Container::Map),
                _ => None,
            },
        }
    }

    fn push_iter_key(&mut self, var: &str, range: &Expr) {
        let entry = self.compute_entry_size(range);
        let size = entry.map(|e| e.key);
        let path = self.get_path(range);
        let sub = if self.container_of(entry, range) == Some(Container::List) {
            "@indices"
        } else {
            "@keys"
        };
        let path = path.append(sub);
        self.push_var(
            var,
            LocalVar {
                path,
                size,
                entry: None,
            },
        );
    }

    fn push_iter_value(&mut self, var: &str, range: &Expr) {
        let entry = self.compute_entry_size(range);
        let size = entry.map(|e| e.val);
        let path = self.get_path(range);
        let sub = if self.container_of(entry, range) == Some(Container::List) {
            "@items"
        } else {
            "@values"
        };
        let path = path.append(sub);
        self.push_var(
            var,
            LocalVar {
                path,
                size,
                entry: None,
            },
        );
    }

    fn push_iter_single(&mut self, var: &str, range: &Expr) {
        let entry = self.compute_entry_size(range);
        let mut size = entry.map(|e| e.key);
        let mut sub = "@keys";
        if self.container_of(entry, range) == Some(Container::List) {
            size = entry.map(|e| e.val);
            sub = "@items";
        }
        let path = self.get_path(range).append(sub);
        self.push_var(
            var,
            LocalVar {
                path,
                size,
                entry: None,
            },
        );
    }

    fn push_local(&mut self, var: &str, e: &Expr) {
        let path = self.get_path(e);
        let entry = self.compute_entry_size(e);
        let size = self.compute_size(e);
        self.push_var(var, LocalVar { path, size, entry });
    }

    fn cost(&mut self, e: &'a Expr) -> Range {
        if self.depth > 2000 {
            return Range::UNKNOWN;
        }
        self.depth += 1;
        let r = match &e.kind {
            ExprKind::Literal(_) => Range::fixed(0),
            ExprKind::Ident(_) => self.cost_ident(e),
            ExprKind::Select { .. } => self.cost_select(e),
            ExprKind::Call { .. } => self.cost_call(e),
            ExprKind::List { .. } => self.cost_create_list(e),
            ExprKind::Map { .. } => self.cost_create_map(e),
            ExprKind::Struct { fields, .. } => {
                let mut sum = Range::default();
                for f in fields {
                    sum = sum.plus(self.cost(&f.value));
                }
                sum.plus(Range::fixed(STRUCT_CREATE_BASE_COST))
            }
            ExprKind::Comprehension(c) if !self.model.comprehension_locals => {
                self.cost_comprehension_before_locals(e, c)
            }
            ExprKind::Comprehension(c) => {
                if is_bind(c) {
                    self.cost_bind(e, c)
                } else {
                    self.cost_comprehension(e, c)
                }
            }
        };
        self.depth -= 1;
        r
    }

    fn cost_ident(&mut self, e: &Expr) -> Range {
        let ExprKind::Ident(name) = &e.kind else {
            return Range::default();
        };
        if let Some(range) = self.iter_ranges.get(name).and_then(|r| r.last()).copied() {
            let range_path = self
                .paths
                .get(&range.id)
                .cloned()
                .unwrap_or_else(GoPath::nil);
            match self.ty(range).kind() {
                Kind::List => {
                    self.paths.insert(e.id, range_path.append("@items"));
                }
                Kind::Map => {
                    self.paths.insert(e.id, range_path.append("@keys"));
                }
                _ => {}
            }
            return Range::fixed(SELECT_AND_IDENT_COST);
        }
        let path = match self.peek(name) {
            Some(v) => v.path.clone(),
            None => GoPath::single(name),
        };
        self.paths.insert(e.id, path);
        Range::fixed(SELECT_AND_IDENT_COST)
    }

    fn cost_select(&mut self, e: &'a Expr) -> Range {
        let ExprKind::Select {
            operand,
            field,
            test_only,
        } = &e.kind
        else {
            return Range::default();
        };
        let mut sum = Range::default();
        if *test_only {
            sum = sum.plus(self.presence_test_cost);
            return sum.plus(self.cost(operand));
        }
        sum = sum.plus(self.cost(operand));
        if matches!(
            self.ty(operand).kind(),
            Kind::Map | Kind::Struct | Kind::TypeParam
        ) {
            sum = sum.plus(Range::fixed(SELECT_AND_IDENT_COST));
        }
        let path = self.get_path(operand).append(field);
        self.paths.insert(e.id, path);
        sum
    }

    fn new_node(&mut self, e: &'a Expr) -> Node<'a> {
        let mut path = self.get_path(e);
        if path.first_is(is_accumulator) {
            path = GoPath::nil();
        }
        let derived = self.compute_size(e);
        Node {
            path,
            ty: self.ty(e),
            expr: Some(e),
            derived,
        }
    }

    fn cost_call(&mut self, e: &'a Expr) -> Range {
        let ExprKind::Call {
            function,
            target,
            args,
        } = &e.kind
        else {
            return Range::default();
        };
        if function == "dyn" && args.len() == 1 && self.model.dyn_is_transparent {
            let arg = &args[0];
            let arg_cost = self.cost(arg);
            self.copy_size_estimates(e, arg);
            return Range::fixed(1).plus(arg_cost);
        }
        let mut arg_costs = Vec::with_capacity(args.len());
        let mut arg_nodes = Vec::with_capacity(args.len());
        for a in args {
            arg_costs.push(self.cost(a));
            arg_nodes.push(self.new_node(a));
        }
        let overloads: Vec<String> = match self.checked.refs.get(&e.id) {
            Some(Reference::Function { overload_ids, .. }) => overload_ids.clone(),
            _ => Vec::new(),
        };
        if overloads.is_empty() {
            return Range::default();
        }
        let mut sum = Range::default();
        let mut target_node = None;
        if let Some(t) = target {
            sum = sum.plus(self.cost(t));
            target_node = Some(self.new_node(t));
        }
        let mut fn_cost = Range {
            min: u64::MAX,
            max: 0,
        };
        let mut result_size: Option<Range> = None;
        for overload in &overloads {
            let oc = self.function_cost(
                e,
                function,
                overload,
                target_node.as_ref(),
                &arg_nodes,
                &arg_costs,
            );
            fn_cost = fn_cost.union(oc.cost);
            if let Some(rs) = oc.result_size {
                result_size = Some(match result_size {
                    None => rs,
                    Some(prev) => prev.union(rs),
                });
            }
            match overload.as_str() {
                "index_list" | "index_map" if !args.is_empty() => {
                    result_size = self.compute_entry_size(&args[0]).map(|s| s.val);
                    let sub = if overload == "index_list" {
                        "@items"
                    } else {
                        "@values"
                    };
                    let p = self.get_path(&args[0]).append(sub);
                    self.paths.insert(e.id, p);
                }
                _ => {}
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        if let Some(rs) = result_size {
            self.computed_sizes.insert(e.id, rs);
        }
        sum.plus(fn_cost)
    }

    fn cost_create_list(&mut self, e: &'a Expr) -> Range {
        let ExprKind::List { elements, .. } = &e.kind else {
            return Range::default();
        };
        let mut sum = Range::default();
        let mut item = Range {
            min: u64::MAX,
            max: 0,
        };
        if elements.is_empty() {
            item.min = 0;
        }
        for el in elements {
            sum = sum.plus(self.cost(el));
            let s = self.size_or_unknown(el);
            item = item.union(s);
        }
        self.entry_sizes.insert(
            e.id,
            EntrySize {
                container: Container::List,
                key: Range::fixed(1),
                val: item,
            },
        );
        sum.plus(Range::fixed(LIST_CREATE_BASE_COST))
    }

    fn cost_create_map(&mut self, e: &'a Expr) -> Range {
        let ExprKind::Map { entries } = &e.kind else {
            return Range::default();
        };
        let mut sum = Range::default();
        let mut key = Range {
            min: u64::MAX,
            max: 0,
        };
        let mut val = key;
        if entries.is_empty() {
            key.min = 0;
            val.min = 0;
        }
        for en in entries {
            sum = sum.plus(self.cost(&en.key));
            sum = sum.plus(self.cost(&en.value));
            key = key.union(self.size_or_unknown(&en.key));
            val = val.union(self.size_or_unknown(&en.value));
        }
        self.entry_sizes.insert(
            e.id,
            EntrySize {
                container: Container::Map,
                key,
                val,
            },
        );
        sum.plus(Range::fixed(MAP_CREATE_BASE_COST))
    }

    fn cost_comprehension(
        &mut self,
        e: &'a Expr,
        c: &'a super::super::ast::Comprehension,
    ) -> Range {
        let mut sum = Range::default();
        sum = sum.plus(self.cost(&c.iter_range));
        sum = sum.plus(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        match &c.iter_var2 {
            Some(v2) => {
                self.push_iter_key(&c.iter_var, &c.iter_range);
                self.push_iter_value(v2, &c.iter_range);
            }
            None => self.push_iter_single(&c.iter_var, &c.iter_range),
        }
        let loop_cost = self.cost(&c.loop_condition);
        let step_cost = self.cost(&c.loop_step);
        self.pop_var(&c.iter_var);
        if let Some(v2) = &c.iter_var2 {
            self.pop_var(v2);
        }
        sum = sum.plus(self.cost(&c.result));
        self.pop_var(&c.accu_var);
        let range_cnt = self.size_or_unknown(&c.iter_range);
        let range_cost = range_cnt.multiply(step_cost.plus(loop_cost));
        sum = sum.plus(range_cost);
        match &c.accu_init.kind {
            ExprKind::Literal(_) => {
                if let Some(s) = self.compute_size(&c.accu_init) {
                    self.computed_sizes.insert(e.id, s);
                }
            }
            ExprKind::List { .. } | ExprKind::Map { .. } => {
                self.computed_sizes.insert(e.id, range_cnt);
                if let Some(step_entry) = self.compute_entry_size(&c.loop_step) {
                    self.entry_sizes.insert(e.id, step_entry);
                }
            }
            _ => {}
        }
        sum
    }

    /// `costComprehension` of cel-go before v0.23 (for `cel.bind` too).
    fn cost_comprehension_before_locals(
        &mut self,
        e: &'a Expr,
        c: &'a super::super::ast::Comprehension,
    ) -> Range {
        let mut sum = self.cost(&c.iter_range).plus(self.cost(&c.accu_init));
        self.iter_ranges
            .entry(c.iter_var.clone())
            .or_default()
            .push(&c.iter_range);
        let loop_cost = self.cost(&c.loop_condition);
        let step_cost = self.cost(&c.loop_step);
        if let Some(v) = self.iter_ranges.get_mut(&c.iter_var) {
            v.pop();
        }
        sum = sum.plus(self.cost(&c.result));
        let range_cnt = self.size_or_unknown(&c.iter_range);
        self.computed_sizes.insert(e.id, range_cnt);
        sum.plus(range_cnt.multiply(step_cost.plus(loop_cost)))
    }

    fn cost_bind(&mut self, e: &'a Expr, c: &'a super::super::ast::Comprehension) -> Range {
        let mut sum = Range::default();
        sum = sum.plus(self.cost(&c.iter_range));
        sum = sum.plus(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        sum = sum.plus(self.cost(&c.result));
        self.pop_var(&c.accu_var);
        self.copy_size_estimates(e, &c.result);
        sum
    }

    fn copy_size_estimates(&mut self, dst: &Expr, src: &Expr) {
        if let Some(s) = self.compute_size(src) {
            self.computed_sizes.insert(dst.id, s);
        }
        if let Some(s) = self.compute_entry_size(src) {
            self.entry_sizes.insert(dst.id, s);
        }
    }

    fn size_or_unknown(&mut self, e: &Expr) -> Range {
        self.compute_size(e).unwrap_or(Range::UNKNOWN)
    }

    fn compute_size(&mut self, e: &Expr) -> Option<Range> {
        if let Some(s) = self.computed_sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = compute_expr_size(e) {
            return Some(s);
        }
        let mut path = self.get_path(e);
        // Before v0.23 sizes are asked of `newAstNode`s, which drop accumulator paths.
        if !self.model.comprehension_locals && path.first_is(is_accumulator) {
            path = GoPath::nil();
        }
        let path = path.get();
        if let Some(s) = self.estimate_size(&path) {
            self.computed_sizes.insert(e.id, s);
            return Some(s);
        }
        if let Some(s) = compute_type_size(&self.ty(e)) {
            return Some(s);
        }
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
            && let Some(s) = v.size
        {
            return Some(s);
        }
        None
    }

    fn compute_entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if !self.model.comprehension_locals {
            return None;
        }
        if let Some(s) = self.entry_sizes.get(&e.id) {
            return Some(*s);
        }
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.entry;
        }
        None
    }

    /// `sizeEstimate` of the Kubernetes and ext estimators: the computed size, else the
    /// schema's, else unknown.
    fn node_size(&self, n: &Node<'_>) -> Range {
        if let Some(s) = n.derived {
            return s;
        }
        self.estimate_size(&n.path()).unwrap_or(Range::UNKNOWN)
    }

    fn node_size_or_unknown(&self, n: &Node<'_>) -> Range {
        n.derived.unwrap_or(Range::UNKNOWN)
    }

    /// `listElementNode`: a node for the elements of a list (the first type parameter).
    fn list_element_node(&self, list: &Node<'_>) -> Option<Node<'static>> {
        let params = type_params(&list.ty);
        let elem = params.first()?.clone();
        let path = if list.path.is_nil() {
            GoPath::nil()
        } else {
            let mut p = list.path();
            p.push("@items".to_string());
            let len = p.len();
            GoPath {
                arr: Some(Rc::new(RefCell::new(p))),
                len,
                cap: len,
            }
        };
        Some(Node {
            path,
            ty: elem,
            expr: None,
            derived: None,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn function_cost(
        &mut self,
        e: &Expr,
        function: &str,
        overload: &str,
        target: Option<&Node<'a>>,
        args: &[Node<'a>],
        arg_costs: &[Range],
    ) -> CallEstimate {
        let arg_sum = arg_costs
            .iter()
            .fold(Range::default(), |acc, c| acc.plus(*c));
        if let Some(est) = self.ext_estimate(overload, target, args) {
            return CallEstimate {
                cost: est.cost.plus(arg_sum),
                result_size: est.result_size,
            };
        }
        if let Some(est) = self.k8s_estimate(function, overload, target, args) {
            return CallEstimate {
                cost: est.cost.plus(arg_sum),
                result_size: est.result_size,
            };
        }
        let tf = STRING_TRAVERSAL_COST_FACTOR;
        let plain = |cost: Range| CallEstimate {
            cost: cost.plus(arg_sum),
            result_size: None,
        };
        match overload {
            "string_format" => {
                if let Some(t) = target {
                    return plain(self.node_size_or_unknown(t).factor(tf));
                }
            }
            "string_to_bytes" if args.len() == 1 => {
                let sz = self.node_size_or_unknown(&args[0]);
                return CallEstimate {
                    cost: sz.factor(tf).plus(arg_sum),
                    result_size: Some(Range {
                        min: sz.min,
                        max: sz.max.wrapping_mul(4),
                    }),
                };
            }
            "bytes_to_string" if args.len() == 1 => {
                let sz = self.node_size_or_unknown(&args[0]);
                return CallEstimate {
                    cost: sz.factor(tf).plus(arg_sum),
                    result_size: Some(Range {
                        min: sz.min / 4,
                        max: sz.max,
                    }),
                };
            }
            "strings_quote" if args.len() == 1 => {
                let sz = self.node_size_or_unknown(&args[0]);
                return CallEstimate {
                    cost: sz.factor(tf).plus(arg_sum),
                    result_size: Some(Range {
                        min: sz.min.wrapping_add(2),
                        max: sz.max.wrapping_mul(2).wrapping_add(2),
                    }),
                };
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return plain(self.node_size_or_unknown(&args[0]).factor(tf));
            }
            "in_list" if args.len() == 2 => {
                return plain(self.node_size_or_unknown(&args[1]).factor(1.0));
            }
            "matches_string" => {
                if let Some(t) = target
                    && args.len() == 1
                {
                    let str_cost = self
                        .node_size_or_unknown(t)
                        .plus(Range::fixed(1))
                        .factor(tf);
                    let regex_cost = self
                        .node_size_or_unknown(&args[0])
                        .factor(REGEX_STRING_LENGTH_COST_FACTOR);
                    return plain(str_cost.multiply(regex_cost));
                }
            }
            "contains_string" => {
                if let Some(t) = target
                    && args.len() == 1
                {
                    let s = self.node_size_or_unknown(t).factor(tf);
                    let sub = self.node_size_or_unknown(&args[0]).factor(tf);
                    return plain(s.multiply(sub));
                }
            }
            "logical_or" | "logical_and" if arg_costs.len() >= 2 => {
                let lhs = arg_costs[0];
                let rhs = arg_costs[1];
                return CallEstimate {
                    cost: Range {
                        min: lhs.min,
                        max: lhs.plus(rhs).max,
                    },
                    result_size: None,
                };
            }
            "conditional" if args.len() == 3 => {
                let size = self
                    .node_size_or_unknown(&args[1])
                    .union(self.node_size_or_unknown(&args[2]));
                let a1 = args[1].expr.and_then(|x| self.compute_entry_size(x));
                let a2 = args[2].expr.and_then(|x| self.compute_entry_size(x));
                if let Some(en) = entry_union(a1, a2) {
                    self.entry_sizes.insert(e.id, en);
                }
                let cost = arg_costs[0].plus(arg_costs[1].union(arg_costs[2]));
                return CallEstimate {
                    cost,
                    result_size: Some(size),
                };
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let lhs = self.node_size_or_unknown(&args[0]);
                let rhs = self.node_size_or_unknown(&args[1]);
                let result = lhs.plus(rhs);
                let a0 = args[0].expr.and_then(|x| self.compute_entry_size(x));
                let a1 = args[1].expr.and_then(|x| self.compute_entry_size(x));
                if let Some(en) = entry_union(a0, a1) {
                    self.entry_sizes.insert(e.id, en);
                }
                let cost = if overload == "add_list" {
                    Range::fixed(1).plus(arg_sum)
                } else {
                    result.factor(tf).plus(arg_sum)
                };
                return CallEstimate {
                    cost,
                    result_size: Some(result),
                };
            }
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals"
                if args.len() >= 2 =>
            {
                let lhs = self.node_size_or_unknown(&args[0]);
                let rhs = self.node_size_or_unknown(&args[1]);
                let smallest_max = lhs.max.min(rhs.max);
                let min = u64::from(smallest_max > 0);
                return plain(
                    Range {
                        min,
                        max: smallest_max,
                    }
                    .factor(tf),
                );
            }
            _ => {}
        }
        plain(Range::fixed(1))
    }

    /// The estimators the `ext` lists (v3) and sets libraries register per overload.
    fn ext_estimate(
        &self,
        overload: &str,
        target: Option<&Node<'a>>,
        args: &[Node<'a>],
    ) -> Option<CallEstimate> {
        let alloc = |factor: f64, size: Range| CallEstimate {
            cost: size
                .factor(factor)
                .plus(Range::fixed(1))
                .plus(Range::fixed(LIST_CREATE_BASE_COST)),
            result_size: Some(size),
        };
        match overload {
            "list_slice" => {
                let t = target?;
                if args.len() != 2 {
                    return None;
                }
                let sz = self.node_size(t);
                let start = node_as_int_value(&args[0], 0);
                let end = node_as_int_value(&args[1], sz.max);
                Some(alloc(1.0, Range::fixed(end.wrapping_sub(start))))
            }
            "lists_range" => {
                if target.is_some() || args.len() != 1 {
                    return None;
                }
                Some(alloc(
                    1.0,
                    Range::fixed(node_as_int_value(&args[0], u64::MAX)),
                ))
            }
            "list_reverse" => {
                let t = target?;
                if !args.is_empty() {
                    return None;
                }
                Some(alloc(1.0, self.node_size(t)))
            }
            "list_flatten" | "list_flatten_int" => {
                let t = target?;
                if args.len() > 1 {
                    return None;
                }
                let depth = if args.len() == 1 {
                    node_as_int_value(&args[0], u64::MAX)
                } else {
                    1
                };
                Some(alloc(depth as f64, self.node_size(t)))
            }
            "list_distinct" => {
                let t = target?;
                if !args.is_empty() {
                    return None;
                }
                let sz = self.node_size(t);
                Some(alloc(2.0, sz.multiply(sz)))
            }
            "list_sets_contains_list"
            | "list_sets_intersects_list"
            | "list_sets_equivalent_list" => {
                if args.len() != 2 {
                    return None;
                }
                let factor = if overload == "list_sets_equivalent_list" {
                    2.0
                } else {
                    1.0
                };
                let a = self.node_size(&args[0]);
                let b = self.node_size(&args[1]);
                Some(CallEstimate {
                    cost: a.multiply(b).factor(factor).plus(Range::fixed(1)),
                    result_size: None,
                })
            }
            o if o.starts_with("list_") && o.ends_with("_sortByAssociatedKeys") => {
                target?;
                if args.len() != 1 {
                    return None;
                }
                let elem = &o["list_".len()..o.len() - "_sortByAssociatedKeys".len()];
                Some(self.sort_cost(&args[0], elem, alloc))
            }
            o if o.starts_with("list_") && o.ends_with("_sort") => {
                let t = target?;
                if !args.is_empty() {
                    return None;
                }
                let elem = &o["list_".len()..o.len() - "_sort".len()];
                if !SORTABLE.contains(&elem) {
                    return None;
                }
                Some(self.sort_cost(t, elem, alloc))
            }
            _ => None,
        }
    }

    fn sort_cost(
        &self,
        n: &Node<'_>,
        elem: &str,
        alloc: impl Fn(f64, Range) -> CallEstimate,
    ) -> CallEstimate {
        let sz = self.node_size(n);
        let mut factor = 2.0;
        if elem == "string" || elem == "bytes" {
            factor += STRING_TRAVERSAL_COST_FACTOR;
        }
        alloc(factor, sz.multiply(sz))
    }

    /// `library.CostEstimator.EstimateCallCost`, by function name.
    fn k8s_estimate(
        &self,
        function: &str,
        overload: &str,
        target: Option<&Node<'a>>,
        args: &[Node<'a>],
    ) -> Option<CallEstimate> {
        let tf = STRING_TRAVERSAL_COST_FACTOR;
        let cost = |c: Range| {
            Some(CallEstimate {
                cost: c,
                result_size: None,
            })
        };
        match function {
            "check" => cost(Range::fixed(350000)),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace"
            | "name" | "allowed" | "reason" | "error" | "errored" => cost(Range::fixed(1)),
            "fieldSelector" | "labelSelector" => {
                if args.len() == 1 {
                    let len = self.node_size(&args[0]);
                    let parse = len.factor(tf);
                    let reqs = len.factor(0.5);
                    let req_cost =
                        reqs.factor((LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST) as f64);
                    return cost(
                        Range::fixed(LIST_CREATE_BASE_COST)
                            .plus(parse)
                            .plus(req_cost),
                    );
                }
                None
            }
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
                let t = target?;
                let mut el_cost = Range::fixed(1);
                if let Some(el) = self.list_element_node(t) {
                    if matches!(el.ty.kind(), Kind::String | Kind::Bytes) {
                        let sz = self.node_size(&el);
                        el_cost = el_cost.plus(sz.factor(tf));
                    }
                    cost(self.node_size(t).multiply(el_cost))
                } else {
                    cost(self.node_size(t).factor(tf))
                }
            }
            "url" | "jsonpatch.escapeKey" => {
                if args.len() == 1 {
                    let sz = self.node_size(&args[0]);
                    return Some(CallEstimate {
                        cost: sz.factor(tf),
                        result_size: Some(sz),
                    });
                }
                None
            }
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let t = target?;
                let sz = self.node_size(t);
                Some(CallEstimate {
                    cost: sz.factor(tf),
                    result_size: Some(sz),
                })
            }
            "replace" => {
                let t = target?;
                if args.len() < 2 {
                    return None;
                }
                let sz = self.node_size(t);
                let to_replace = self.node_size(&args[0]);
                let replace_with = self.node_size(&args[1]);
                let mut count = Range::default();
                let mut retained = Range::default();
                if to_replace.min == 0 {
                    count.max = if sz.max < u64::MAX {
                        sz.max + 1
                    } else {
                        sz.max
                    };
                    retained.max = sz.max;
                } else if replace_with.max <= to_replace.min {
                    count.max = 0;
                    retained.max = sz.max;
                } else {
                    count.max = go_f64_to_u64((sz.max as f64 / to_replace.min as f64).ceil());
                }
                if to_replace.max == 0 {
                    count.min = if sz.min < u64::MAX {
                        sz.min + 1
                    } else {
                        sz.min
                    };
                    retained.min = sz.min;
                } else if to_replace.max <= replace_with.min {
                    count.min = 0;
                    retained.min = sz.min;
                } else {
                    count.min = go_f64_to_u64((sz.min as f64 / to_replace.max as f64).ceil());
                }
                let size = count.multiply(replace_with).plus(retained);
                Some(CallEstimate {
                    cost: sz.factor(2.0 * tf),
                    result_size: Some(size),
                })
            }
            "split" => {
                let t = target?;
                let sz = self.node_size(t);
                let mut max = sz.max;
                if args.len() > 1
                    && let Some(ExprKind::Literal(Literal::Int(i))) = args[1].expr.map(|x| &x.kind)
                {
                    max = *i as u64;
                }
                Some(CallEstimate {
                    cost: sz.factor(2.0 * tf),
                    result_size: Some(Range { min: 0, max }),
                })
            }
            "join" => {
                let t = target?;
                let mut sz = Range::default();
                let list_size = self.node_size(t);
                if let Some(el) = self.list_element_node(t) {
                    let elem_size = self.node_size(&el);
                    sz = list_size.multiply(elem_size);
                }
                if let Some(sep) = args.first() {
                    let sep_size = self.node_size(sep);
                    let seps = Range {
                        min: list_size.min.saturating_sub(1),
                        max: list_size.max.saturating_sub(1),
                    };
                    sz = sz.plus(sep_size.multiply(seps));
                }
                Some(CallEstimate {
                    cost: sz.factor(tf),
                    result_size: Some(sz),
                })
            }
            "find" | "findAll" => {
                let t = target?;
                let first = args.first()?;
                let sz = self.node_size(t);
                let str_cost = sz.plus(Range::fixed(1)).factor(tf);
                let regex_cost = self
                    .node_size(first)
                    .factor(REGEX_STRING_LENGTH_COST_FACTOR);
                Some(CallEstimate {
                    cost: str_cost.multiply(regex_cost),
                    result_size: Some(Range {
                        min: 0,
                        max: sz.max,
                    }),
                })
            }
            "cidr" | "isIP" | "isCIDR" => {
                let first = args.first()?;
                cost(self.node_size(first).factor(tf))
            }
            "ip" => {
                if overload == "cidr_ip" {
                    return cost(Range::fixed(1));
                }
                let first = args.first()?;
                cost(self.node_size(first).factor(tf))
            }
            "ip.isCanonical" => {
                let first = args.first()?;
                cost(self.node_size(first).factor(2.0 * tf))
            }
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast" => cost(Range::fixed(1)),
            "containsIP" | "containsCIDR" => {
                let first = args.first()?;
                let sz = Range { min: 4, max: 16 };
                let mut c = sz.plus(sz).factor(tf);
                if function == "containsCIDR" {
                    c = c.plus(sz.factor(tf)).plus(Range::fixed(1));
                }
                if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string"
                {
                    c = c.plus(self.node_size(first).factor(tf));
                }
                cost(c)
            }
            "quantity" | "isQuantity" | "semver" | "isSemver" => {
                let first = args.first()?;
                cost(self.node_size(first).factor(tf))
            }
            "validate" => {
                let first = args.first()?;
                cost(
                    self.node_size(first)
                        .factor(tf)
                        .factor(MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR),
                )
            }
            "format.named" => cost(Range::fixed(1)),
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => {
                cost(Range::fixed(1))
            }
            "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
                cost(Range::fixed(1))
            }
            "_==_" => {
                if args.len() != 2 || args[0].ty != args[1].ty {
                    return None;
                }
                match &args[0].ty {
                    Type::Opaque(n, _) if n == "net.IP" || n == "net.CIDR" => cost(Range::fixed(1)),
                    Type::Object(n) => match n.as_str() {
                        "kubernetes.Quantity"
                        | "kubernetes.authorization.Authorizer"
                        | "kubernetes.authorization.PathCheck"
                        | "kubernetes.authorization.GroupCheck"
                        | "kubernetes.authorization.ResourceCheck"
                        | "kubernetes.authorization.Decision"
                        | "kubernetes.Semver" => cost(Range::fixed(1)),
                        "kubernetes.NamedFormat" => cost(
                            Range {
                                min: 1,
                                max: MAX_FORMAT_SIZE,
                            }
                            .factor(tf),
                        ),
                        "kubernetes.URL" => {
                            // Upstream reads the right-hand side's size twice.
                            let size = match args[1].derived {
                                Some(r) => r,
                                None => Range::fixed(1),
                            };
                            cost(
                                Range {
                                    min: 1,
                                    max: size.max,
                                }
                                .factor(tf),
                            )
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

const SORTABLE: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "string",
    "bytes",
];

/// Go's `uint64(f)` for the non-negative values these estimates produce.
fn go_f64_to_u64(f: f64) -> u64 {
    if f.is_nan() {
        return 0x8000_0000_0000_0000;
    }
    f as u64
}

/// `nodeAsIntValue` of the lists library: an int literal's value (negative → 0), else
/// the default.
fn node_as_int_value(n: &Node<'_>, default: u64) -> u64 {
    match n.expr.map(|e| &e.kind) {
        Some(ExprKind::Literal(Literal::Int(i))) => {
            if *i < 0 {
                0
            } else {
                *i as u64
            }
        }
        _ => default,
    }
}

fn type_params(t: &Type) -> Vec<Type> {
    match t {
        Type::List(e) => vec![(**e).clone()],
        Type::Map(k, v) => vec![(**k).clone(), (**v).clone()],
        Type::Opaque(_, ps) => ps.clone(),
        Type::Type(Some(p)) => vec![(**p).clone()],
        _ => Vec::new(),
    }
}

fn is_bind(c: &super::super::ast::Comprehension) -> bool {
    matches!(&c.iter_range.kind, ExprKind::List { elements, .. } if elements.is_empty())
        && matches!(
            c.loop_condition.kind,
            ExprKind::Literal(Literal::Bool(false))
        )
        && c.accu_var != "__result__"
}

fn compute_expr_size(e: &Expr) -> Option<Range> {
    let v = match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::String(s) => s.chars().count() as u64,
            Literal::Bytes(b) => b.len() as u64,
            _ => 1,
        },
        ExprKind::List { elements, .. } => elements.len() as u64,
        ExprKind::Map { entries } => entries.len() as u64,
        _ => return None,
    };
    Some(Range::fixed(v))
}

fn compute_type_size(t: &Type) -> Option<Range> {
    is_scalar(t).then_some(Range::fixed(1))
}

fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        Type::Opaque(n, ps) if n == "optional_type" => ps.first().is_some_and(is_scalar),
        Type::Wrapper(p) => is_scalar(p),
        _ => false,
    }
}
