//! CEL for `x-kubernetes-validations`: parsing (behind [`parse`]), types, the type
//! checker, the Kubernetes environment, declared types from structural schemas, rule
//! compilation and evaluation.

pub mod ast;
pub mod checker;
pub mod compile;
#[cfg(test)]
pub(crate) mod conformance;
#[cfg(test)]
mod conformance_eval;
pub mod cost;
pub mod env;
pub mod errors;
pub mod eval;
pub mod fastparse;
pub mod gotime;
pub mod interp;
pub mod library;
pub(crate) mod lookup;
pub mod node_steps;
pub mod parse;
mod parse_depth;
mod parse_expecting;
mod parse_has;
mod parse_lookahead;
mod parse_recovered;
pub mod plan;
mod program_cache;
pub mod reach;
pub mod rule_tree;
pub mod schema_types;
pub mod types;
pub mod validate;
pub mod value;
pub(crate) mod work;

pub use compile::{
    CODES, RuleCompileResult, RuleProgram, SchemaStep, StoredExpressions, compile_expression,
    compile_rules, compile_rules_at, compile_rules_with,
};
pub use env::KubeVersion;
pub use eval::{CrdRules, EvalOptions, EvalOutcome, NotEvaluated, evaluate, evaluate_with};

/// Parses and type-checks `text` against `decls` (no AST validators).
pub fn parse_and_check(
    text: &str,
    decls: &checker::Declarations<'_>,
) -> Result<checker::CheckedAst, errors::Issues> {
    let ast = parse::parse(text, decls.env.parse_options())?;
    checker::check(ast, decls)
}

#[cfg(test)]
mod check_tests {
    use super::checker::{Declarations, NoTypes};
    use super::env::{Env, KubeVersion};
    use super::types::Type;

    fn check(text: &str, vars: &[(&str, Type)]) -> Result<String, String> {
        let env = Env::for_server(KubeVersion::NEWEST);
        let vars: Vec<(String, Type)> = vars
            .iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        let decls = Declarations {
            env: &env,
            variables: &vars,
            provider: &NoTypes,
        };
        super::parse_and_check(text, &decls)
            .map(|c| c.output_type().to_string())
            .map_err(|i| i.display())
    }

    #[test]
    fn infers_types() {
        assert_eq!(check("1 + 2", &[]), Ok("int".into()));
        assert_eq!(check("[1, 2].map(x, x * 2)", &[]), Ok("list(int)".into()));
        assert_eq!(check("{'a': 1}.a", &[]), Ok("int".into()));
        assert_eq!(check("[1].all(x, x > 0)", &[]), Ok("bool".into()));
        assert_eq!(
            check("size('a') == 1u", &[]).unwrap_err(),
            "ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(int, uint)'\n | size('a') == 1u\n | ..........^"
        );
        assert_eq!(check("optional.of(1).orValue(2)", &[]), Ok("int".into()));
        assert_eq!(check("[1, 'a']", &[]), Ok("list(dyn)".into()));
        assert_eq!(
            check("x.y", &[("x", Type::map(Type::String, Type::Int))]),
            Ok("int".into())
        );
        assert_eq!(check("lists.range(3).sum()", &[]), Ok("int".into()));
        assert_eq!(
            check("'abc'.reverse()", &[]).unwrap_err(),
            "ERROR: <input>:1:14: found no matching overload for 'reverse' applied to 'string.()'\n | 'abc'.reverse()\n | .............^"
        );
        assert_eq!(
            check("math.greatest(1, 2)", &[]).unwrap_err(),
            "ERROR: <input>:1:1: undeclared reference to 'math' (in container '')\n | math.greatest(1, 2)\n | ^\nERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n | math.greatest(1, 2)\n | .............^"
        );
        assert_eq!(
            check("y", &[]).unwrap_err(),
            "ERROR: <input>:1:1: undeclared reference to 'y' (in container '')\n | y\n | ^"
        );
        assert_eq!(check("{'a': 1}.all(k, v, v > 0)", &[]), Ok("bool".into()));
        assert_eq!(check("[3, 1].sortBy(x, -x)", &[]), Ok("list(int)".into()));
        assert_eq!(
            check("quantity('1Gi').isGreaterThan(quantity('1'))", &[]),
            Ok("bool".into())
        );
        assert_eq!(check("type(1) == int", &[]), Ok("bool".into()));
        assert_eq!(check("1 < 2.0", &[]), Ok("bool".into()));
        assert_eq!(check("{'a': 1}.?a.orValue(0)", &[]), Ok("int".into()));
    }
}
#[cfg(test)]
mod compile_tests;
#[cfg(test)]
mod eval_tests;
#[cfg(test)]
pub(crate) mod testutil;
