//! crdlint's own CEL syntax tree: the shape of cel-go's (ids on every node, macros
//! expanded into comprehensions exactly as cel-go expands them), independent of the
//! parser crate so that the checker, the cost estimator and the interpreter never
//! touch that crate's often-changing API.

use std::collections::HashMap;

/// A node id, unique within one [`Ast`].
pub type ExprId = u64;

/// A map keyed by node id. Ids are small counters the parser hands out, not input, so a
/// multiply spreads them well enough and nobody can aim collisions at it; SipHash (the
/// default) cost ~2 % of a corpus check in the checker's and cost estimator's maps.
pub type IdMap<V> = HashMap<ExprId, V, std::hash::BuildHasherDefault<IdHasher>>;

/// The hasher of [`IdMap`]: one multiply per id (Fx-style).
#[derive(Clone, Copy, Default)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub id: ExprId,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    Ident(String),
    /// `operand.field`, or `has(operand.field)` when `test_only`.
    Select {
        operand: Box<Expr>,
        field: String,
        test_only: bool,
    },
    /// A function or operator call (`_+_`, `size`, `x.startsWith(y)`).
    Call {
        function: String,
        target: Option<Box<Expr>>,
        args: Vec<Expr>,
    },
    List {
        elements: Vec<Expr>,
        /// Indices of `?elem` entries.
        optional_indices: Vec<usize>,
    },
    Map {
        entries: Vec<MapEntry>,
    },
    Struct {
        type_name: String,
        fields: Vec<StructField>,
    },
    Comprehension(Box<Comprehension>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    Null,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    pub id: ExprId,
    pub key: Expr,
    pub value: Expr,
    pub optional: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructField {
    pub id: ExprId,
    pub name: String,
    pub value: Expr,
    pub optional: bool,
}

/// A fold: what every macro (`all`, `exists`, `map`, `filter`, …) expands into.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub iter_range: Expr,
    pub iter_var: String,
    /// The second variable of two-variable comprehensions (`m.all(k, v, …)`).
    pub iter_var2: Option<String>,
    pub accu_var: String,
    pub accu_init: Expr,
    pub loop_condition: Expr,
    pub loop_step: Expr,
    pub result: Expr,
}

/// The accumulator name cel-go's macros use.
pub const ACCUMULATOR: &str = "@result";

/// A parsed expression with where each node stands in the source.
#[derive(Clone, Debug)]
pub struct Ast {
    pub expr: Expr,
    pub source: Source,
}

/// The expression text and the byte offset of every node (where cel-go places it:
/// calls at the operator or `(`, selects at the `.`, macro-generated nodes at their
/// macro call).
#[derive(Clone, Debug, Default)]
pub struct Source {
    pub text: String,
    pub offsets: IdMap<usize>,
}

/// A 1-based line and a 0-based column counted in characters, as cel-go counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

impl Source {
    pub fn new(text: &str) -> Self {
        Source {
            text: text.to_string(),
            offsets: IdMap::default(),
        }
    }

    /// Byte offset of the node, if known.
    pub fn offset(&self, id: ExprId) -> Option<usize> {
        self.offsets.get(&id).copied()
    }

    /// Character offset inside the text of a byte offset.
    pub fn char_offset(&self, byte_offset: usize) -> usize {
        let end = byte_offset.min(self.text.len());
        let mut end = end;
        while end > 0 && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        self.text[..end].chars().count()
    }

    /// Line and character column of a byte offset.
    pub fn location_of(&self, byte_offset: usize) -> Location {
        let mut end = byte_offset.min(self.text.len());
        while end > 0 && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &self.text[..end];
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        Location {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count(),
        }
    }

    /// The text of a 1-based line, without its line break.
    pub fn line_text(&self, line: usize) -> Option<&str> {
        if line == 0 {
            return None;
        }
        self.text.split('\n').nth(line - 1)
    }
}

impl Expr {
    pub fn new(id: ExprId, kind: ExprKind) -> Self {
        Expr { id, kind }
    }

    /// The dotted name an identifier or chain of field selections spells (`a.b.c`),
    /// used to resolve qualified identifiers and namespaced functions.
    pub fn qualified_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Ident(name) => Some(name.clone()),
            ExprKind::Select {
                operand,
                field,
                test_only: false,
            } => operand.qualified_name().map(|p| format!("{p}.{field}")),
            _ => None,
        }
    }

    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident(name) => Some(name),
            _ => None,
        }
    }

    /// Calls `f` on this node and every descendant, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => operand.walk(f),
            ExprKind::Call { target, args, .. } => {
                if let Some(t) = target {
                    t.walk(f);
                }
                for a in args {
                    a.walk(f);
                }
            }
            ExprKind::List { elements, .. } => {
                for e in elements {
                    e.walk(f);
                }
            }
            ExprKind::Map { entries } => {
                for e in entries {
                    e.key.walk(f);
                    e.value.walk(f);
                }
            }
            ExprKind::Struct { fields, .. } => {
                for fl in fields {
                    fl.value.walk(f);
                }
            }
            ExprKind::Comprehension(c) => {
                c.iter_range.walk(f);
                c.accu_init.walk(f);
                c.loop_condition.walk(f);
                c.loop_step.walk(f);
                c.result.walk(f);
            }
        }
    }
}
