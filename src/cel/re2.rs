//! Go RE2 regular expressions (CEL `matches`, `find`, `findAll`) on the `regex` crate:
//! a translation of the syntax where the two differ, so a pattern compiles here exactly
//! when Go's `regexp.Compile` accepts it (for the constructs rules use) and matches the
//! same strings.
//!
//! Differences handled: `\d \w \s \b \B` are ASCII in Go; `\Q…\E` quoting and octal
//! escapes exist only in Go; Go caps repeat counts at 1000; inside a class, Go treats
//! `[`, `&&`, `--` and `~~` literally where Rust reads nested classes or set operations.

/// Compiles a Go regular expression; the error text is Go's where we know it.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    let translated = translate(pattern)?;
    regex::RegexBuilder::new(&translated)
        .size_limit(1 << 22)
        .build()
        .map_err(|e| format!("error parsing regexp: {e}"))
}

fn translate(p: &str) -> Result<String, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let Some(&n) = chars.get(i + 1) else {
                return Err(
                    "error parsing regexp: trailing backslash at end of expression: ``".into(),
                );
            };
            match n {
                'Q' if !in_class => {
                    let mut j = i + 2;
                    while j < chars.len() && !(chars[j] == '\\' && chars.get(j + 1) == Some(&'E')) {
                        out.push_str(&regex::escape(&chars[j].to_string()));
                        j += 1;
                    }
                    i = (j + 2).min(chars.len() + 1);
                    continue;
                }
                'd' => out.push_str(if in_class { "0-9" } else { "[0-9]" }),
                'D' => out.push_str(if in_class { "\\D" } else { "[^0-9]" }),
                'w' => out.push_str(if in_class {
                    "0-9A-Za-z_"
                } else {
                    "[0-9A-Za-z_]"
                }),
                'W' => out.push_str(if in_class { "\\W" } else { "[^0-9A-Za-z_]" }),
                's' => out.push_str(if in_class {
                    "\\t\\n\\f\\r "
                } else {
                    "[\\t\\n\\f\\r ]"
                }),
                'S' => out.push_str(if in_class { "\\S" } else { "[^\\t\\n\\f\\r ]" }),
                'b' if !in_class => out.push_str("(?-u:\\b)"),
                'B' if !in_class => out.push_str("(?-u:\\B)"),
                '0'..='7' => {
                    let mut v = 0u32;
                    let mut j = i + 1;
                    while j < chars.len() && j < i + 4 && ('0'..='7').contains(&chars[j]) {
                        v = v * 8 + chars[j].to_digit(8).unwrap_or(0);
                        j += 1;
                    }
                    if n != '0' && j == i + 2 {
                        // `\1`: Go has no backreferences.
                        return Err(format!(
                            "error parsing regexp: invalid escape sequence: `\\{n}`"
                        ));
                    }
                    out.push_str(&format!("\\x{{{v:x}}}"));
                    i = j;
                    continue;
                }
                _ => {
                    out.push('\\');
                    out.push(n);
                }
            }
            i += 2;
            continue;
        }
        if in_class {
            match c {
                ']' if i > class_start => {
                    in_class = false;
                    out.push(']');
                }
                '[' if chars.get(i + 1) == Some(&':') => {
                    // POSIX class `[:alpha:]`, same in both.
                    let end = chars[i..]
                        .windows(2)
                        .position(|w| w == [':', ']'])
                        .map(|p| i + p + 2);
                    match end {
                        Some(e) => {
                            out.extend(&chars[i..e]);
                            i = e;
                            continue;
                        }
                        None => out.push_str("\\["),
                    }
                }
                '[' => out.push_str("\\["),
                '&' | '-' | '~' if chars.get(i + 1) == Some(&c) => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                // A leading `]` is literal in both.
                class_start = i + usize::from(chars.get(i) == Some(&']'));
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            '{' => {
                // Repeat counts above 1000 are errors in Go.
                let rest: String = chars[i + 1..].iter().take_while(|c| **c != '}').collect();
                if rest.chars().all(|c| c.is_ascii_digit() || c == ',') && !rest.is_empty() {
                    for n in rest.split(',') {
                        if n.parse::<u64>().is_ok_and(|n| n > 1000) {
                            return Err(format!(
                                "error parsing regexp: invalid repeat count: `{{{rest}}}`"
                            ));
                        }
                    }
                }
                out.push('{');
            }
            _ => out.push(c),
        }
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::compile;

    #[test]
    fn go_semantics() {
        assert!(compile("[").is_err());
        assert!(compile("a{1001}").is_err());
        assert!(compile(r"\1").is_err());
        assert!(
            compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
                .unwrap()
                .is_match("ab-c")
        );
        assert!(!compile(r"^\d+$").unwrap().is_match("٣"));
        assert!(compile(r"\Qa.b\E").unwrap().is_match("a.b"));
        assert!(!compile(r"^\Qa.b\E$").unwrap().is_match("axb"));
        assert!(compile(r"[[:alpha:]]").unwrap().is_match("x"));
        assert!(compile(r"[a&&b]").unwrap().is_match("&"));
    }
}
