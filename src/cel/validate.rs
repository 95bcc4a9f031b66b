//! The AST validators the Kubernetes environment runs after a successful type check
//! (cel-go `cel/validator.go`): homogeneous aggregate literals (always), and from
//! compatibility version 1.29 the duration, timestamp and regex literal validators.

use super::ast::{Expr, ExprKind, Literal};
use super::checker::CheckedAst;
use super::env::Env;
use super::errors::Issues;

pub fn validate(checked: &CheckedAst, env: &Env) -> Result<(), Issues> {
    let mut issues = Issues::new(&checked.ast.source.text);
    let src = &checked.ast.source;
    let mut report = |id, message: String| {
        issues.push_at(src, src.offset(id), message);
    };
    // Lists and maps under a `format` call are exempt once the strings extension's
    // format validator is present.
    let exempt_format = env.features.strings_version >= 1;
    homogeneous(
        &checked.ast.expr,
        checked,
        exempt_format,
        false,
        &mut report,
    );
    if env.features.extended_validations {
        checked.ast.expr.walk(&mut |e| {
            let ExprKind::Call { function, args, .. } = &e.kind else {
                return;
            };
            let Some(arg) = args.first() else {
                return;
            };
            let ExprKind::Literal(lit) = &arg.kind else {
                return;
            };
            let ok = match (function.as_str(), lit) {
                ("duration", Literal::String(s)) => super::gotime::parse_duration(s)
                    .is_ok_and(|n| super::gotime::duration_in_range(n as i128)),
                ("timestamp", Literal::String(s)) => super::gotime::parse_rfc3339(s).is_ok(),
                ("timestamp", Literal::Int(i)) => {
                    (super::gotime::MIN_UNIX_SECONDS..=super::gotime::MAX_UNIX_SECONDS).contains(i)
                }
                ("matches", Literal::String(s)) => crate::schema::regex::go_error(s).is_none(),
                // The validators evaluate the conversion: `duration(1)` (no runtime
                // conversion from int) and `timestamp(null)`/`duration(null)` (null
                // passes the checker as a protobuf message) fail.
                ("duration" | "timestamp", _) => false,
                ("matches", _) => true,
                _ => return,
            };
            if !ok {
                report(arg.id, format!("invalid {function} argument"));
            }
        });
    }
    if env.features.strings_version >= 1 {
        for (id, message) in super::library::strformat::check_calls(checked) {
            report(id, message);
        }
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(issues)
    }
}

fn homogeneous(
    e: &Expr,
    checked: &CheckedAst,
    exempt_format: bool,
    exempt: bool,
    report: &mut dyn FnMut(u64, String),
) {
    match &e.kind {
        ExprKind::List {
            elements,
            optional_indices,
        } => {
            if !exempt {
                let mut first: Option<super::types::Type> = None;
                for (i, el) in elements.iter().enumerate() {
                    let mut t = checked.type_of(el.id);
                    if optional_indices.contains(&i) {
                        t = t.unwrap_optional().0.clone();
                    }
                    match &first {
                        None => first = Some(t),
                        Some(f) if !f.is_equivalent(&t) => {
                            report(el.id, format!("expected type '{f}' but found '{t}'"));
                            break;
                        }
                        _ => {}
                    }
                }
            }
            for el in elements {
                homogeneous(el, checked, exempt_format, exempt, report);
            }
        }
        ExprKind::Map { entries } => {
            if !exempt {
                let mut first: Option<(super::types::Type, super::types::Type)> = None;
                for en in entries {
                    let kt = checked.type_of(en.key.id);
                    let mut vt = checked.type_of(en.value.id);
                    if en.optional {
                        vt = vt.unwrap_optional().0.clone();
                    }
                    match &first {
                        None => first = Some((kt, vt)),
                        Some((fk, fv)) => {
                            if !fk.is_equivalent(&kt) {
                                report(en.key.id, format!("expected type '{fk}' but found '{kt}'"));
                            }
                            if !fv.is_equivalent(&vt) {
                                report(
                                    en.value.id,
                                    format!("expected type '{fv}' but found '{vt}'"),
                                );
                            }
                        }
                    }
                }
            }
            for en in entries {
                homogeneous(&en.key, checked, exempt_format, exempt, report);
                homogeneous(&en.value, checked, exempt_format, exempt, report);
            }
        }
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            let exempt = exempt || (exempt_format && function == "format");
            if let Some(t) = target {
                homogeneous(t, checked, exempt_format, exempt, report);
            }
            for a in args {
                homogeneous(a, checked, exempt_format, exempt, report);
            }
        }
        ExprKind::Select { operand, .. } => {
            homogeneous(operand, checked, exempt_format, exempt, report)
        }
        ExprKind::Struct { fields, .. } => {
            for f in fields {
                homogeneous(&f.value, checked, exempt_format, exempt, report);
            }
        }
        ExprKind::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ] {
                homogeneous(x, checked, exempt_format, exempt, report);
            }
        }
        ExprKind::Literal(_) | ExprKind::Ident(_) => {}
    }
}
