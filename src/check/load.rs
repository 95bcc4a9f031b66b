//! Reading and parsing one input into documents, turning every problem on the way
//! into a diagnostic for that file (the run goes on with other files).

use std::cell::Cell;
use std::sync::Arc;

use super::timings::{self, Stage};
use crate::diag::Diagnostic;
use crate::source::read::{ReadError, read_input, read_input_into};
use crate::source::walk::Input;
use crate::source::yaml::{self, Limits, ParsedDocument, YamlErrorKind};
use crate::source::{self as src, SourceFile};

/// A file after reading and parsing.
pub struct LoadedFile {
    pub file: Arc<SourceFile>,
    pub documents: Vec<ParsedDocument>,
    pub diagnostics: Vec<Diagnostic>,
    /// The file could not be read at all (I/O error): exit code 2.
    pub io_error: bool,
}

pub fn load(input: &Input, max_file_size: u64, limits: &Limits) -> LoadedFile {
    match read(input, max_file_size) {
        Ok(text) => parse_text(input, text, limits),
        Err(unreadable) => *unreadable,
    }
}

/// Reads an input into text; an unreadable one becomes a file with its diagnostic.
pub fn read(input: &Input, max_file_size: u64) -> Result<String, Box<LoadedFile>> {
    timings::time(Stage::Read, || read_input(input, max_file_size))
        .map_err(|error| Box::new(unreadable(input.display(), error)))
}

thread_local! {
    /// The buffer of a text this thread no longer needs (see [`recycle`]).
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// [`read`] into this thread's spare buffer when it has one. Texts read only to be
/// scanned, or dropped after their file is done, are [`recycle`]d: the next read on
/// the thread fills memory already mapped instead of memory the kernel must fault in
/// and zero page by page (the corpus's CRD texts alone would be ~7,500 page faults).
pub fn read_reusing(input: &Input, max_file_size: u64) -> Result<String, Box<LoadedFile>> {
    let buffer = SPARE.with(Cell::take);
    timings::time(Stage::Read, || {
        read_input_into(input, max_file_size, buffer)
    })
    .map_err(|error| Box::new(unreadable(input.display(), error)))
}

/// `text` without most of a recycled buffer's spare capacity, for a text that is kept:
/// the budgets count text lengths, so a small file read into a large buffer must not
/// keep the buffer.
pub fn fitted(mut text: String) -> String {
    if text.capacity() > 2 * text.len() + (64 << 10) {
        // One byte to spare: a text without a final line break gets one.
        text.shrink_to(text.len() + 1);
    }
    text
}

/// Keeps `text`'s buffer for this thread's next [`read_reusing`] (the larger one, when
/// the thread already keeps one: one buffer per thread, at most the largest file).
pub fn recycle(text: String) {
    let buffer = text.into_bytes();
    SPARE.with(|spare| {
        let kept = spare.take();
        spare.set(if kept.capacity() >= buffer.capacity() {
            kept
        } else {
            buffer
        });
    });
}

/// Parses the text read from `input`.
pub fn parse_text(input: &Input, text: String, limits: &Limits) -> LoadedFile {
    let file = SourceFile::new(input.display(), line_terminated(text));
    let parsed = timings::time(Stage::Parse, || yaml::parse(&file.text, limits));
    // Found once per file, only when an `ignored-content` warning needs it.
    let first_lone_cr = std::cell::OnceCell::new();
    let diagnostics = parsed
        .errors
        .iter()
        .map(|e| {
            let (code, label, help) = match e.kind {
                // Go's encoding/json words (yaml/go_json_scan.rs).
                YamlErrorKind::Syntax
                    if e.message.starts_with("json: offset ")
                        || e.message.starts_with("invalid character ")
                        || e.message == "unexpected EOF" =>
                {
                    (
                        src::YAML_SYNTAX,
                        "syntax error",
                        "fix the JSON syntax here (kubectl decodes a file that starts with `{` as JSON, and stops there when the rest is not YAML either); the rest of this file was not checked",
                    )
                }
                YamlErrorKind::Syntax => (
                    src::YAML_SYNTAX,
                    "syntax error",
                    "fix the YAML syntax here; the rest of this file was not checked",
                ),
                YamlErrorKind::DuplicateKey => (
                    src::DUPLICATE_KEY,
                    "duplicate key",
                    "remove one of the two keys: the API server's strict decoding rejects duplicates",
                ),
                YamlErrorKind::AliasLimit | YamlErrorKind::DepthLimit => (
                    src::YAML_LIMIT,
                    "limit exceeded here",
                    "this document was not checked; manifests never need this much expansion or nesting",
                ),
                YamlErrorKind::ControlCharacter => (
                    src::YAML_SYNTAX,
                    "control character",
                    "remove it or write it as an escape in a double-quoted string: kubectl's YAML reader rejects this document",
                ),
                // A directive kubectl's YAML parser scans but refuses (malformed,
                // duplicate, another YAML version): not about where `---` stands.
                YamlErrorKind::Directive
                    if e.message != "did not find expected <document start>" =>
                {
                    (
                        src::YAML_SYNTAX,
                        "directive",
                        "kubectl's YAML parser (go-yaml) refuses this directive and the document after it: remove this line (Kubernetes manifests need no directives)",
                    )
                }
                YamlErrorKind::Directive => (
                    src::YAML_SYNTAX,
                    "directive",
                    "kubectl converts the lines before `---` as a document of their own, and a directive alone fails: remove this line (Kubernetes manifests need no directives)",
                ),
                YamlErrorKind::Tab => (
                    src::YAML_SYNTAX,
                    "tab",
                    "indent with spaces: kubectl's YAML parser (go-yaml) allows a tab only as white space after a key's `:`, inside a value or inside `[...]`/`{...}`. This document was not checked",
                ),
                YamlErrorKind::EmptyDocument => (
                    src::YAML_SYNTAX,
                    "document end",
                    "go-yaml (kubectl) needs a value before `...` in each `---` section: remove this line",
                ),
                YamlErrorKind::IgnoredContent if file.text[e.span.start..].starts_with('%') => (
                    src::IGNORED_CONTENT,
                    "never read",
                    "to go-yaml (kubectl) a directive line ends the document before it, and kubectl reads nothing more up to the next `---`: remove it (Kubernetes manifests need no directives)",
                ),
                YamlErrorKind::IgnoredContent
                    if first_lone_cr.get_or_init(|| first_lone_cr_in(&file.text))
                        .is_some_and(|at| at < e.span.start) =>
                {
                    (
                    src::IGNORED_CONTENT,
                    "never read",
                    "kubectl cuts a file into `---` sections at LF line breaks only, and this file breaks lines with a lone CR (classic Mac line ends), where go-yaml ends the section's first document at `---`: convert its line ends to LF or CRLF",
                )
                }
                YamlErrorKind::IgnoredContent => (
                    src::IGNORED_CONTENT,
                    "never read",
                    "put `---` before it to make it a document of its own (kubectl reads the first document of each `---` section only)",
                ),
                YamlErrorKind::AnchorName => (
                    src::YAML_SYNTAX,
                    "anchor name",
                    "kubectl's YAML parser (go-yaml) reads anchor and alias names of ASCII letters, digits, `_` and `-` only: rename it. This document was not checked",
                ),
                YamlErrorKind::UnicodeLineBreak => (
                    src::UNICODE_LINE_BREAK,
                    "line break for kubectl",
                    "write it as an escape in a double-quoted string (`\\u2028`, `\\u2029`, `\\u0085`) or remove it",
                ),
                YamlErrorKind::InvalidSeparator => (
                    src::YAML_SYNTAX,
                    "content after a document separator",
                    "kubectl's YAML reader allows only spaces or a comment after `---`: move this to the next line. The document before this line and the rest of the file were not checked",
                ),
                YamlErrorKind::NotJson => (
                    src::NOT_JSON,
                    "no JSON equivalent",
                    "Kubernetes converts YAML to JSON; use string keys and finite numbers",
                ),
            };
            let help = match e.kind {
                YamlErrorKind::Syntax | YamlErrorKind::NotJson
                    if near_template_action(&file.text, e.span.start) =>
                {
                    "this looks like a template (`{{ ... }}`), which is not a manifest until it is rendered: check the output instead (`helm template CHART | crdlint check -`), or leave the file out with `--exclude`"
                }
                _ => help,
            };
            let diagnostic = if e.kind.is_warning() {
                Diagnostic::warning(code, e.message.clone())
            } else {
                Diagnostic::error(code, e.message.clone())
            };
            diagnostic
                .with_span(e.span)
                .with_label(label)
                .with_help(help)
                .in_document(&file, e.document)
        })
        .collect();
    LoadedFile {
        file,
        documents: parsed.documents,
        diagnostics,
        io_error: false,
    }
}

/// The first CR of `text` that kubectl's line reader leaves alone, a line break to
/// go-yaml: one followed by neither LF nor CRLF (of `\r\r\n` it removes the second CR).
fn first_lone_cr_in(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    memchr::memchr_iter(b'\r', b).find(|&at| {
        let after = &b[at + 1..];
        !after.starts_with(b"\n") && !after.starts_with(b"\r\n")
    })
}

/// kubectl (and kubectl-validate) read manifests line by line with apimachinery's
/// `YAMLReader`, whose line reader ends every line, the last one included, with a line
/// break: a text without a final break is parsed as if it had one. (It matters for a
/// block scalar on the last line: a last line of indentation only is then an empty
/// line, not content.) Offsets into the text do not move.
pub fn line_terminated(mut text: String) -> String {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn unreadable(name: String, error: ReadError) -> LoadedFile {
    let file = SourceFile::new(name, String::new());
    let (code, io_error, help) = match &error {
        ReadError::Io(_) => (src::IO_ERROR, true, None),
        ReadError::NotRegular(_) => (
            src::IO_ERROR,
            true,
            Some("crdlint reads regular files only; pipe the content to `crdlint check -` instead"),
        ),
        ReadError::TooLarge { .. } => (
            src::FILE_TOO_LARGE,
            false,
            Some("raise the limit with --max-file-size BYTES if this file really is a manifest"),
        ),
        ReadError::Binary { .. } | ReadError::NotUtf8 { .. } => (
            src::BINARY_FILE,
            false,
            Some("exclude it with --exclude GLOB, or save it as UTF-8 text"),
        ),
    };
    let mut diagnostic = Diagnostic::error(code, error.message()).in_file(&file);
    if let Some(help) = help {
        diagnostic = diagnostic.with_help(help);
    }
    LoadedFile {
        file,
        documents: Vec::new(),
        diagnostics: vec![diagnostic],
        io_error,
    }
}

/// Whether the line at `at`, or the one before it, holds a Go template action (`{{`):
/// Helm chart templates fail as YAML, and the fix is to render them, not to edit them.
fn near_template_action(text: &str, at: usize) -> bool {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let previous_start = text[..line_start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[previous_start..line_end].contains("{{")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_actions_are_looked_for_on_the_line_and_the_one_before() {
        let text = "a: 1\nb: {{ x }}\nc: [\nd: 2\n";
        let line = |n: usize| {
            text.match_indices('\n')
                .nth(n - 2)
                .map_or(0, |(i, _)| i + 1)
        };
        assert!(!near_template_action(text, 0));
        assert!(near_template_action(text, line(2) + 3));
        assert!(near_template_action(text, line(3)));
        assert!(!near_template_action(text, line(4)));
        assert!(!near_template_action(text, text.len()));
        assert!(near_template_action("{{", 2));
    }

    #[test]
    fn a_kept_text_does_not_keep_a_recycled_buffer() {
        let mut big = String::with_capacity(1 << 20);
        big.push_str("a: 1");
        let kept = fitted(big);
        assert_eq!(kept, "a: 1");
        assert!(kept.capacity() < 1 << 10, "{}", kept.capacity());
        // A buffer about the text's size stays as it is.
        let mut near = String::with_capacity(100);
        near.push_str("b: 2");
        assert_eq!(fitted(near).capacity(), 100);
    }
}
