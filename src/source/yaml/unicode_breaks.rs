//! NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029).
//!
//! YAML 1.1, which go-yaml and so kubectl's reader follow, counts them as line breaks:
//! after one, go-yaml starts a new line at column 0, so in block context the text after
//! it usually fails to parse ("could not find expected ':'") or lands elsewhere in the
//! tree, and in a quoted scalar the white space around it is folded away. YAML 1.2,
//! which saphyr follows, reads them as ordinary characters. crdlint keeps YAML 1.2's
//! reading (one line model for spans, tabs and values) and warns where the two differ.
//! (Recorded with the 1.35 libraries behind kubectl-validate's chunk reader: `a: x<LS>y`
//! fails, `a: "x <LS>  y"` is "x<LS>y".)

use memchr::memmem;

use super::{ParseOutput, Span, YamlError, YamlErrorKind};

const BREAKS: [(&str, &str); 3] = [
    ("\u{85}", "U+0085 (NEXT LINE)"),
    ("\u{2028}", "U+2028 (LINE SEPARATOR)"),
    ("\u{2029}", "U+2029 (PARAGRAPH SEPARATOR)"),
];

/// Adds one warning per document for the first such character in it.
pub(super) fn unicode_line_breaks(text: &str, out: &mut ParseOutput) {
    // Most manifests are ASCII: one fast pass instead of three searches.
    if text.is_ascii() {
        return;
    }
    let mut found: Vec<(usize, &str, &str)> = BREAKS
        .iter()
        .flat_map(|&(needle, name)| {
            memmem::find_iter(text.as_bytes(), needle.as_bytes()).map(move |at| (at, needle, name))
        })
        .collect();
    if found.is_empty() {
        return;
    }
    found.sort_by_key(|&(at, _, _)| at);
    let mut warned: Option<usize> = None;
    // Documents come in text order: binary search (one per document scanned them all).
    let in_order = out
        .documents
        .windows(2)
        .all(|w| w[0].root.span.start <= w[1].root.span.start);
    for (at, needle, name) in found {
        let before = if in_order {
            out.documents[..out.documents.partition_point(|d| d.root.span.start <= at)].last()
        } else {
            out.documents.iter().rfind(|d| d.root.span.start <= at)
        };
        let document = before.map_or(0, |d| d.index);
        if warned == Some(document) {
            continue;
        }
        warned = Some(document);
        out.errors.push(YamlError {
            kind: YamlErrorKind::UnicodeLineBreak,
            message: format!(
                "{name} is a line break for kubectl's YAML reader (YAML 1.1) and a character for crdlint (YAML 1.2): kubectl may read this document differently or refuse it"
            ),
            span: Span::new(at, at + needle.len()),
            document,
        });
    }
}
