//! Inline suppression: a YAML comment `# crdlint-ignore: CODE[, CODE…] reason` silences
//! findings of those codes that start on the comment's own line (a trailing comment) or
//! on the line below it (a comment on a line of its own; several such comment lines may
//! be stacked above one line). A suppression that silences nothing is reported, so
//! stale ones do not pile up.

use std::sync::Arc;

use crate::diag::{Diagnostic, Severity};
use crate::source::{SourceFile, Span};

crate::declare_codes! {
    UNUSED_SUPPRESSION = "unused-suppression", Warning, "A `# crdlint-ignore` comment names a code that has no finding on its line";
    INVALID_SUPPRESSION = "invalid-suppression", Warning, "A `# crdlint-ignore` comment names no code, or a code crdlint does not have";
}

pub(super) const MARKER: &str = "crdlint-ignore";

/// One code named by one comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    pub code: String,
    /// The code's bytes in the file.
    pub span: Span,
    /// 0-based line whose findings it silences.
    pub target_line: usize,
}

/// What the comments of one file say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comments {
    pub suppressions: Vec<Suppression>,
    /// Comments that could not be understood: (span, message).
    pub invalid: Vec<(Span, String)>,
}

/// Finds the suppression comments of a file.
pub fn scan(text: &str) -> Comments {
    let mut comments = Comments::default();
    let lines: Vec<(usize, &str)> = line_starts(text);
    let below = first_content_line_below(&lines);
    for (index, &(start, line)) in lines.iter().enumerate() {
        let Some(hash) = comment_start(line) else {
            continue;
        };
        let own_line = line[..hash].trim().is_empty();
        let body = &line[hash + 1..];
        let trimmed = body.trim_start();
        let Some(after) = trimmed.strip_prefix(MARKER) else {
            continue;
        };
        // `crdlint-ignore-file` and the like are other words, not this marker.
        let Some(rest) = after.strip_prefix(':') else {
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-') {
                continue;
            }
            let at = start + hash + 1 + (body.len() - trimmed.len());
            comments.invalid.push((
                Span::new(at, at + MARKER.len()),
                format!("expected `{MARKER}: CODE reason`"),
            ));
            continue;
        };
        let target_line = if own_line { below[index] } else { index };
        let rest_offset = start + line.len() - rest.len();
        let codes = parse_codes(rest, rest_offset);
        if codes.is_empty() {
            let at = start + hash + 1 + (body.len() - trimmed.len());
            comments.invalid.push((
                Span::new(at, at + MARKER.len() + 1),
                format!("`{MARKER}:` names no code; write `# {MARKER}: CODE reason`"),
            ));
        }
        for (code, span) in codes {
            comments.suppressions.push(Suppression {
                code,
                span,
                target_line,
            });
        }
    }
    comments
}

/// For every line, the first line below it that is not a comment line (`lines.len()`
/// when there is none): what a comment on a line of its own silences. Computed once
/// from the bottom, because 20,000 stacked comment lines each looking down through the
/// others took seconds.
fn first_content_line_below(lines: &[(usize, &str)]) -> Vec<usize> {
    let mut below = vec![lines.len(); lines.len()];
    let mut next_content = lines.len();
    for (index, (_, line)) in lines.iter().enumerate().rev() {
        below[index] = next_content;
        if !line.trim_start().starts_with('#') {
            next_content = index;
        }
    }
    below
}

/// `(start offset, line text without the line break)` for every line.
fn line_starts(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let content = content.strip_suffix('\r').unwrap_or(content);
        out.push((start, content));
        start += line.len();
    }
    out
}

/// The byte index of the `#` that starts a YAML comment on this line, if any: a `#` at
/// the start or after a space or tab, outside quoted scalars. (A `#` inside a multi-line
/// quoted or block scalar is not recognised as text; such a line is never a suppression
/// in practice.)
fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(b'"') if b == b'\\' => i += 1,
            Some(b'\'') if b == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'#' if i == 0 || matches!(bytes[i - 1], b' ' | b'\t') => return Some(i),
                // A quote opens a scalar only where a scalar can start.
                b'"' | b'\''
                    if i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'[' | b'{' | b',') =>
                {
                    quote = Some(b)
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// `code-a, code-b reason…` → the codes and their spans (`offset` is where `text` starts).
fn parse_codes(text: &str, offset: usize) -> Vec<(String, Span)> {
    let mut codes = Vec::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-') {
            i += 1;
        }
        if start == i {
            break;
        }
        codes.push((
            text[start..i].to_string(),
            Span::new(offset + start, offset + i),
        ));
        let mut j = i;
        while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
            j += 1;
        }
        if bytes.get(j) == Some(&b',') {
            i = j + 1;
        } else {
            break;
        }
    }
    codes
}

/// A file with suppression comments, while findings are matched to them.
struct Commented<'f> {
    file: &'f Arc<SourceFile>,
    comments: Comments,
    /// Indices of `comments.suppressions` in target-line order.
    by_line: Vec<usize>,
    /// Which suppressions removed a finding.
    used: Vec<bool>,
}

/// Removes the findings that comments in `files` suppress, and adds a finding for every
/// suppression that removed nothing or that names no known code. Files whose text
/// could not be read or parsed completely get no `unused-suppression`: their findings
/// are not complete.
pub fn apply(files: &[Arc<SourceFile>], diagnostics: &mut Vec<Diagnostic>) {
    let known: Vec<&str> = crate::codes::all().iter().map(|c| c.code).collect();
    // The files with suppression comments, by path, each with its suppressions in
    // target-line order: a finding looks up its file and line instead of scanning
    // every comment of every file (800,000 findings each beside an unused comment
    // took minutes).
    let mut commented: Vec<Commented> = Vec::new();
    for file in files {
        if memchr::memmem::find(file.text.as_bytes(), MARKER.as_bytes()).is_none() {
            continue;
        }
        let comments = scan(&file.text);
        let mut by_line: Vec<usize> = (0..comments.suppressions.len()).collect();
        by_line.sort_by_key(|&i| comments.suppressions[i].target_line);
        let used = vec![false; comments.suppressions.len()];
        commented.push(Commented {
            file,
            comments,
            by_line,
            used,
        });
    }
    if commented.is_empty() {
        return;
    }
    let index: std::collections::HashMap<&str, usize> = commented
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| (c.file.path.as_str(), i))
        .collect();
    diagnostics.retain(|d| {
        let (Some(span), Some(df)) = (d.span, &d.file) else {
            return true;
        };
        let Some(&at) = index.get(df.path.as_str()) else {
            return true;
        };
        let Commented {
            file,
            comments,
            by_line,
            used,
        } = &mut commented[at];
        let line = file.lines().line_of(span.start);
        let suppressions = &comments.suppressions;
        let first = by_line.partition_point(|&i| suppressions[i].target_line < line);
        let mut keep = true;
        for &i in by_line[first..]
            .iter()
            .take_while(|&&i| suppressions[i].target_line == line)
        {
            if suppressions[i].code == d.code {
                used[i] = true;
                keep = false;
            }
        }
        keep
    });
    // Files with a loading or parsing finding: their findings are not complete.
    let incomplete: std::collections::HashSet<&str> = diagnostics
        .iter()
        .filter(|d| crate::source::CODES.iter().any(|c| c.code == d.code))
        .filter_map(|d| d.file.as_ref().map(|f| f.path.as_str()))
        .collect();
    let mut added = Vec::new();
    for Commented {
        file,
        comments,
        used,
        ..
    } in commented
    {
        let incomplete = incomplete.contains(file.path.as_str());
        for (s, used) in comments.suppressions.iter().zip(used) {
            if used {
                continue;
            }
            if !known.contains(&s.code.as_str()) {
                added.push(
                    Diagnostic::new(
                        INVALID_SUPPRESSION,
                        Severity::Warning,
                        format!("unknown code `{}` in `{MARKER}` comment", s.code),
                    )
                    .with_span(s.span)
                    .with_label("unknown code")
                    .with_help(match suggest(&s.code, &known) {
                        Some(close) => {
                            format!("did you mean `{close}`? `crdlint rules` lists every code")
                        }
                        None => "`crdlint rules` lists every code".to_string(),
                    })
                    .in_file(file),
                );
            } else if !incomplete {
                added.push(
                    Diagnostic::new(
                        UNUSED_SUPPRESSION,
                        Severity::Warning,
                        format!(
                            "unused suppression: no `{}` finding on the line it covers",
                            s.code
                        ),
                    )
                    .with_span(s.span)
                    .with_label("suppresses nothing")
                    .with_help("remove this code from the comment (or the whole comment)")
                    .in_file(file),
                );
            }
        }
        for (span, message) in comments.invalid {
            added.push(
                Diagnostic::new(INVALID_SUPPRESSION, Severity::Warning, message)
                    .with_span(span)
                    .with_label("no code")
                    .in_file(file),
            );
        }
    }
    diagnostics.extend(added);
}

/// The known code closest to a misspelt one (edit distance at most 3).
pub fn suggest<'a>(code: &str, known: &[&'a str]) -> Option<&'a str> {
    let chars = code.chars().count();
    known
        .iter()
        // Lengths that differ by more than 3 are more than 3 edits apart: a 1 MB "code"
        // is not compared with every known one (1.7 s each).
        .filter(|k| k.chars().count().abs_diff(chars) <= 3)
        .map(|k| (distance(code, k), *k))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| k)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            previous = current;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<(String, usize, &str)> {
        scan(text)
            .suppressions
            .into_iter()
            .map(|s| (s.code, s.target_line, &text[s.span.start..s.span.end]))
            .collect()
    }

    #[test]
    fn trailing_comments_cover_their_line_and_own_line_comments_the_next() {
        let text = "a: 1 # crdlint-ignore: code-a because\n# crdlint-ignore: code-b, code-c reason\n# another comment\nb: 2\n";
        assert_eq!(
            targets(text),
            [
                ("code-a".to_string(), 0, "code-a"),
                ("code-b".to_string(), 3, "code-b"),
                ("code-c".to_string(), 3, "code-c"),
            ]
        );
    }

    #[test]
    fn own_line_comments_look_past_indented_comments_and_may_cover_nothing_at_the_end() {
        let text = "# crdlint-ignore: code-a\n  # indented\nx: 1 # crdlint-ignore: code-b\n\n# crdlint-ignore: code-c\n  # crdlint-ignore: code-d";
        assert_eq!(
            targets(text),
            [
                ("code-a".to_string(), 2, "code-a"),
                ("code-b".to_string(), 2, "code-b"),
                ("code-c".to_string(), 6, "code-c"),
                ("code-d".to_string(), 6, "code-d"),
            ]
        );
    }

    #[test]
    fn hashes_inside_quotes_and_words_are_not_comments() {
        let text = "a: \"x # crdlint-ignore: c\"\nb: 'it''s # crdlint-ignore: c'\nc: d#crdlint-ignore: c\nd: 1 #crdlint-ignore-file: c\n";
        assert_eq!(targets(text), []);
        assert_eq!(scan(text).invalid, []);
    }

    #[test]
    fn comments_without_codes_are_invalid() {
        let text = "a: 1 # crdlint-ignore:\nb: 2 # crdlint-ignore please\n";
        let invalid = scan(text).invalid;
        assert_eq!(invalid.len(), 2);
        assert_eq!(
            invalid[0].1,
            "`crdlint-ignore:` names no code; write `# crdlint-ignore: CODE reason`"
        );
        assert_eq!(
            &text[invalid[1].0.start..invalid[1].0.end],
            "crdlint-ignore"
        );
    }

    #[test]
    fn apply_matches_findings_of_each_file_to_that_files_comments_by_line() {
        // Stacked own-line comments target one line; a trailing one on the line below
        // targets its own. Findings of another file with the same lines stay.
        let text = "# crdlint-ignore: missing-crd\n# crdlint-ignore: duplicate-crd\nkind: A\nkind: B # crdlint-ignore: missing-crd\n";
        let first = SourceFile::new("a.yaml", text.to_string());
        let second = SourceFile::new("b.yaml", "kind: A\nkind: B\nkind: C\nkind: D\n".to_string());
        let finding = |file: &std::sync::Arc<SourceFile>, code: &'static str, line: usize| {
            let at = file.lines().line_start(line);
            Diagnostic::warning(code, "m")
                .with_span(Span::new(at, at + 4))
                .in_file(file)
        };
        let mut diagnostics = vec![
            finding(&second, "missing-crd", 2),
            finding(&first, "missing-crd", 3),
            finding(&first, "duplicate-crd", 2),
            finding(&first, "missing-crd", 2),
            finding(&second, "duplicate-crd", 3),
        ];
        apply(&[first.clone(), second.clone()], &mut diagnostics);
        let got: Vec<(&str, &str, usize)> = diagnostics
            .iter()
            .map(|d| {
                let file = d.file.as_ref().unwrap();
                (
                    d.code,
                    file.path.as_str(),
                    file.position(d.span.unwrap().start).line,
                )
            })
            .collect();
        assert_eq!(
            got,
            [("missing-crd", "b.yaml", 3), ("duplicate-crd", "b.yaml", 4),]
        );
    }

    #[test]
    fn long_unknown_codes_get_no_suggestion() {
        let known = ["missing-crd", "duplicate-crd"];
        assert_eq!(suggest("mising-crd", &known), Some("missing-crd"));
        assert_eq!(suggest("missing-crdxyz", &known), Some("missing-crd"));
        assert_eq!(suggest("missing-crdwxyz", &known), None);
        assert_eq!(suggest(&"a".repeat(1_000_000), &known), None);
    }

    #[test]
    fn apply_removes_matching_findings_and_reports_unused_ones() {
        let text = "kind: A # crdlint-ignore: missing-crd known\n# crdlint-ignore: duplicate-crd, missing-crd\nkind: B\nkind: C # crdlint-ignore: mising-crd\n";
        let file = SourceFile::new("f.yaml", text.to_string());
        let at = |line: usize| file.lines().line_start(line);
        let finding = |line| {
            Diagnostic::warning("missing-crd", "m")
                .with_span(Span::new(at(line), at(line) + 4))
                .in_file(&file)
        };
        let mut diagnostics = vec![finding(0), finding(2), finding(3)];
        apply(std::slice::from_ref(&file), &mut diagnostics);
        let got: Vec<(&str, usize, String)> = diagnostics
            .iter()
            .map(|d| {
                (
                    d.code,
                    file.position(d.span.unwrap().start).line,
                    d.message.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("missing-crd", 4, "m".to_string()),
                (
                    "unused-suppression",
                    2,
                    "unused suppression: no `duplicate-crd` finding on the line it covers"
                        .to_string()
                ),
                (
                    "invalid-suppression",
                    4,
                    "unknown code `mising-crd` in `crdlint-ignore` comment".to_string()
                ),
            ]
        );
        assert_eq!(
            diagnostics[2].help.as_deref(),
            Some("did you mean `missing-crd`? `crdlint rules` lists every code")
        );
    }

    #[test]
    fn incomplete_files_report_no_unused_suppressions() {
        let text = "a: 1 # crdlint-ignore: missing-crd\nb: [\n";
        let file = SourceFile::new("f.yaml", text.to_string());
        let mut diagnostics = vec![
            Diagnostic::error("yaml-syntax", "bad")
                .with_span(Span::new(text.len() - 1, text.len()))
                .in_file(&file),
        ];
        apply(std::slice::from_ref(&file), &mut diagnostics);
        assert_eq!(diagnostics.len(), 1);
    }
}
