//! Inputs found by fuzzing (fuzz/), minimized, each with the exact behaviour that is now
//! expected. One test per finding; the comment says which target found it.

use crdlint::source::inner::{decode_with_offsets, offset_in_scalar};
use crdlint::source::yaml::{Limits, parse};
use crdlint::source::{ScalarStyle, Span, Value};

/// crdlint's error for a byte order mark before `...` or `---` on a later line.
const MARK_BEFORE_MARKER: &str = "a byte order mark starts this line: go-yaml (kubectl) reads the `...` or `---` after it as content, crdlint's parser as a document marker; crdlint cannot read this document as kubectl does";

/// yaml_spans: a block scalar that is a whole document. The implicit document start is
/// marked at the first content character, and the `|` before it was missed: the span
/// started at the content (`|2`), and re-scanning it decoded "" instead of "|2\n".
#[test]
fn a_block_scalar_as_the_document_spans_from_its_indicator() {
    for (text, content) in [("|\r\n|2\n", 3), ("|\n x\n", 3), ("# c\n>\n x\n", 7)] {
        let out = parse(text, &Limits::default());
        assert!(out.errors.is_empty(), "{text:?}: {:?}", out.errors);
        let root = &out.documents[0].root;
        let indicator = text.find(['|', '>']).unwrap();
        assert_eq!(root.span.start, indicator, "{text:?}");
        let Value::String(value) = &root.value else {
            panic!("{text:?}: {:?}", root.value)
        };
        let (decoded, offsets, _) = decode_with_offsets(text, root.span, root.style).unwrap();
        assert_eq!(&decoded, value, "{text:?}");
        assert_eq!(offsets[0], content, "{text:?}");
        assert_eq!(
            offset_in_scalar(text, root.span, root.style, 0),
            Some(content)
        );
    }
    let out = parse("|\r\n|2\n", &Limits::default());
    assert_eq!(out.documents[0].root.span, Span::new(0, 5));
    assert_eq!(out.documents[0].root.style, ScalarStyle::Literal);
}

/// yaml_spans: a block scalar header with an indentation indicator alone on its line
/// under its key (with the fuzzer's CR line breaks). libyaml and the loader indent the
/// content from the key's column; the offset mapping counted from the header line and
/// re-scanned "\n\" |l\n     tf4\n".
#[test]
fn an_indentation_indicator_under_its_key_counts_from_the_key() {
    // (The fuzzer wrote a control character where `x` is: go-yaml refuses those now.)
    let text = "\remext:\n |1\r\n\n  \" |l\n       tf4";
    let out = parse_clean(text);
    let root = &out.documents[0].root;
    let Value::Object(map) = &root.value else {
        panic!("{:?}", root.value)
    };
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String("\n \" |l\n      tf4\n".into()));
    let (decoded, _, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(Value::String(decoded), node.value);
}

/// Hostile input (a 10 MB line): miette panicked ("Formatting argument out of range")
/// padding a label past 65,535 columns. Lines over 1 KiB are not shown as snippets.
#[test]
fn a_finding_far_along_a_long_line_renders_without_a_snippet() {
    use crdlint::check::Summary;
    use crdlint::diag::Diagnostic;
    use crdlint::report::{Format, render};
    use crdlint::source::SourceFile;

    let text = format!("a: \"{}\"\n", "x".repeat(70_000));
    let file = SourceFile::new("long.yaml", text);
    let d = Diagnostic::error("yaml-syntax", "boom")
        .with_span(Span::new(70_004, 70_005))
        .in_document(&file, 0);
    let summary = Summary {
        files: 1,
        errors: 1,
        ..Summary::default()
    };
    let out = render(Format::Human, &[d], &summary, false);
    assert!(out.contains("long.yaml:1:70005: boom"), "{out}");
    assert!(out.len() < 1000, "{out}");
}

/// cel_rule: a raw triple-quoted string holding U+0000. The generated lexer's `.` (used
/// only by raw triple-quoted strings) matches neither U+0000 nor U+10FFFF, so the
/// generated parser refuses it; the fast-path parser accepted it. It now declines, and
/// the error is the generated parser's.
#[test]
fn a_nul_in_a_raw_triple_quoted_string_is_left_to_the_generated_parser() {
    use crdlint::cel::fastparse::compare_with_generated;
    use crdlint::cel::parse::{ParseOptions, parse};

    let found = "self.all(key, key.matches(r\"\"\"^([a-z0-z\u{c}\u{0}0-9][.filter(-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$\"\"\"))";
    for text in [found, "r'''a\u{0}b'''", "r\"\"\"\u{10ffff}\"\"\""] {
        assert_eq!(
            compare_with_generated(text, ParseOptions::default()),
            Ok(false),
            "{text:?}"
        );
        assert!(parse(text, ParseOptions::default()).is_err(), "{text:?}");
    }
}

/// yaml_spans slow unit (a fuzzed Gateway, 22 KB): each lenient re-parse padded more
/// lines by thousands of spaces; over 32 attempts the text grew to 12 MB and one check
/// took a second. Padding is now bounded (64 KiB or an eighth of the text). The file
/// must still come back with its errors, and with the spans inside the original text.
#[test]
fn lenient_reparse_padding_is_bounded() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/fuzz/lenient-padding.yaml"
    ))
    .unwrap();
    // Without anchors and aliases (`&` and `*` become `x`, lengths kept): an anchor
    // name that go-yaml ends early (the fuzzed `&alue:null…`) now fails its document
    // before any lenient re-parse. The errors are those the original gave before.
    let text = text.replace(['&', '*'], "x");
    let out = parse(&text, &Limits::default());
    assert!(out.documents.is_empty());
    let kinds: Vec<String> = out.errors.iter().map(|e| format!("{:?}", e.kind)).collect();
    assert_eq!(
        kinds,
        [
            "DuplicateKey",
            "DuplicateKey",
            "DuplicateKey",
            "DuplicateKey",
            // The fuzzed text holds a U+2028 (a warning since `unicode-line-break`).
            "UnicodeLineBreak",
            "Syntax",
            "ControlCharacter"
        ]
    );
    assert!(out.errors.iter().all(|e| e.span.end <= text.len()));
}

/// yaml_spans: a document that is a block scalar header and nothing else before the next
/// marker (`|` then `---#`). saphyr looks for markers only once a block scalar has
/// content: it read the marker and every document after it as the scalar's text, where
/// go-yaml (and kubectl's reader) end the scalar there, empty. The offset mapping (which
/// stops at markers) then disagreed with the value.
#[test]
fn an_empty_block_scalar_document_ends_at_the_next_marker() {
    for (text, documents) in [
        ("|\n---#", 1),
        ("|\n---\napiVersion: v1\nkind: ConfigMap\n", 2),
        ("# c\n>-\n\n...\n---\na: 1\n", 2),
        ("|\n x\n---# c\ny: 1\n", 2),
    ] {
        let out = parse(text, &Limits::default());
        assert!(out.errors.is_empty(), "{text:?}: {:?}", out.errors);
        assert_eq!(out.documents.len(), documents, "{text:?}");
        let root = &out.documents[0].root;
        let Value::String(value) = &root.value else {
            panic!("{text:?}: {:?}", root.value)
        };
        assert!(
            !value.contains('-') && !value.contains('#'),
            "{text:?}: {value:?}"
        );
        assert!(matches!(
            root.style,
            ScalarStyle::Literal | ScalarStyle::Folded
        ));
        let (decoded, _, end) = decode_with_offsets(text, root.span, root.style).unwrap();
        assert_eq!(&decoded, value, "{text:?}");
        assert!(
            end <= text.find("\n---").or(text.find("\n...")).unwrap() + 1,
            "{text:?}"
        );
    }
}

/// yaml_spans (a timeout): quoted scalars continued at column 0 inside flow sequences,
/// several per `---` section, each section ending in content go-yaml never reads. Every
/// repair re-parsed the whole text and the lenient re-parses ran inside each of the
/// outer ones: 87 parses of this text, and 571 of the fuzzed file (25 s once 1.3 MB of
/// valid YAML came first). All parses of a file now share a budget of 24 times its size.
#[test]
fn repairs_of_a_file_share_one_parse_budget() {
    let block = "      args: [\n        \"a\n# b\"\n      ]\n";
    let section = format!("{}1\n---\n      args: [\n      ]\n", block.repeat(4));
    let filler: String = (0..10_000).map(|i| format!("  k{i}: v\n")).collect();
    let text = format!("a:\n{filler}---\n{}", section.repeat(32));
    let out = parse(&text, &Limits::default());
    assert!(
        out.bytes_parsed <= 24 * text.len(),
        "{} bytes parsed for a {}-byte text",
        out.bytes_parsed,
        text.len()
    );
    // The repair that did not fit is said to be one, not passed off as go-yaml's verdict.
    let syntax: Vec<_> = out
        .errors
        .iter()
        .filter(|e| e.kind == crdlint::source::yaml::YamlErrorKind::Syntax)
        .collect();
    assert_eq!(syntax.len(), 1, "{:?}", out.errors);
    assert_eq!(
        syntax[0].message,
        "invalid indentation in quoted scalar (crdlint stopped re-parsing this file at its parse budget, 24 times its size; kubectl may accept this line: see docs/limits.md)"
    );
    // The valid document before is read.
    assert_eq!(out.documents[0].root.span.start, 0);

    // A section alone is repaired within the budget, as go-yaml reads it.
    let out = parse(&format!("---\n{section}"), &Limits::default());
    assert!(
        out.errors
            .iter()
            .all(|e| e.kind != crdlint::source::yaml::YamlErrorKind::Syntax),
        "{:?}",
        out.errors
    );
    // A manifest that needs no repair is parsed once.
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    assert_eq!(
        parse(manifest, &Limits::default()).bytes_parsed,
        manifest.len()
    );
}

/// yaml_spans: a byte order mark in mid-stream. go-yaml counts it as a column, so the
/// `...` after it ends nothing and the `|#` below is a block scalar header with a
/// comment, listed for blanking; saphyr ends the document at `...` and reads the second
/// `|#` as the content of a root block scalar. Blanking that `#` gave the value "| \n"
/// for the text `|#`. A blanked comment that saphyr reads as content now fails its chunk
/// (go-yaml fails it too) with saphyr's error.
#[test]
fn a_blanked_comment_that_saphyr_reads_as_content_fails_its_chunk() {
    let text = ":\r\u{feff}...\r|#\r|#";
    let out = parse(text, &Limits::default());
    assert!(out.documents.is_empty(), "{:?}", out.documents);
    let syntax: Vec<_> = out
        .errors
        .iter()
        .filter(|e| e.kind == crdlint::source::yaml::YamlErrorKind::Syntax)
        .map(|e| (e.span.start, e.message.as_str(), e.document))
        .collect();
    assert_eq!(
        syntax,
        [
            (2, MARK_BEFORE_MARKER, 0),
            (
                13,
                "comments must be separated from other tokens by whitespace",
                1
            )
        ]
    );
    // Header comments right after `|` stay comments.
    let out = parse("a: |#c\n  x#y\nb: >-#e\n  z\n", &Limits::default());
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let root = &out.documents[0].root;
    assert_eq!(root.get("a").and_then(|n| n.as_str()), Some("x#y\n"));
    assert_eq!(root.get("b").and_then(|n| n.as_str()), Some("z"));
}

/// yaml_spans: a `%` line after a lone CR (a YAML line break) was not taken for a
/// directive line, so it was not hidden from saphyr, which miscounts positions after a
/// directive name with a multi-byte character: every later span was three bytes late,
/// one of them inside the emoji. (`o`, after `...` and a lone CR, is never read by
/// kubectl: go-yaml ends the document there.)
#[test]
fn a_directive_after_a_lone_carriage_return_keeps_later_spans_in_place() {
    let text = "\r%\u{1F600}\n---\ne\n...\ro\n\u{1F600}";
    assert_parsed(
        text,
        &[(Span::new(11, 12), Value::String("e".into()))],
        &[
            (Span::new(1, 1), "could not find expected directive name"),
            (Span::new(17, 17), IGNORED),
        ],
    );
}

/// yaml_spans (the same finding's second cause): `...` after a lone CR is a document end
/// for go-yaml. A chunk that starts with it fails in kubectl, and the `%` line after it
/// was left to saphyr, which misplaced the later spans.
#[test]
fn a_document_end_after_a_lone_carriage_return_hides_the_rest_of_its_chunk() {
    let text = "\r...\r%\u{1F600}\n---\ny\n...\rn\n\u{1F600}";
    // (`y` is a YAML 1.1 boolean, as go-yaml reads it.)
    assert_parsed(
        text,
        &[(Span::new(15, 16), Value::Bool(true))],
        &[
            (Span::new(1, 1), "did not find expected node content"),
            (Span::new(21, 21), IGNORED),
        ],
    );
}

/// yaml_spans (the same finding's third cause): a directive after a byte order mark at
/// the start of the stream.
#[test]
fn a_directive_after_a_byte_order_mark_keeps_later_spans_in_place() {
    let text = "\u{FEFF}%\u{1F600}\n---\na\n...\r.\n\u{1F600}";
    assert_parsed(
        text,
        &[(Span::new(13, 14), Value::String("a".into()))],
        &[
            (Span::new(3, 3), "could not find expected directive name"),
            (Span::new(19, 19), IGNORED),
        ],
    );
}

/// yaml_spans: a root block scalar before a `---` after a lone CR. The rest of the chunk
/// (kubectl never reads it) was given to saphyr as comment lines, which a root block
/// scalar still open in saphyr's view took as content: the value was `"#  \n#  ..."`,
/// and with a multi-byte character there, a span ended inside it. go-yaml ends the
/// scalar at the `---`: the value is empty.
#[test]
fn a_root_block_scalar_ends_at_a_separator_after_a_lone_carriage_return() {
    for (text, ignored) in [
        ("|\r\r\r---\r -{a: \u{e9}}\n---\nx\n", 9),
        ("|\r---\r  k: \u{e9}\n  j: 1\n---\nx\n", 8),
    ] {
        let end = text.find("\n---").unwrap();
        assert_parsed(
            text,
            &[
                (Span::new(0, 1), Value::String(String::new())),
                (Span::new(end + 5, end + 6), Value::String("x".into())),
            ],
            &[(Span::new(ignored, ignored), IGNORED)],
        );
    }
    // The fuzzed input: every span on a character boundary.
    let text = "|#|#\r\r\r---\r -{host: nul[l} and {c\n\u{e9}apiVerlt:, 0\"\n:\n  servic\n\u{e9}api {}\n---\napnableAd    minAPI3.20$.92. ve\n1083/32\"\n : fal.coreos.com/v1\n";
    let out = parse(text, &Limits::default());
    for document in &out.documents {
        assert!(text.is_char_boundary(document.root.span.start));
        assert!(text.is_char_boundary(document.root.span.end));
    }
}

const IGNORED: &str = "kubectl never reads this: it reads one document per `---` section, and this is after the first";

/// The documents' spans and values, and the errors' spans and messages (Unicode line
/// break warnings aside).
/// `text` parsed, which must load without errors.
fn parse_clean(text: &str) -> crdlint::source::yaml::ParseOutput {
    let out = parse(text, &Limits::default());
    assert!(out.errors.is_empty(), "{text:?}: {:?}", out.errors);
    out
}

/// For a text whose first document is a mapping: its first key is `key`, the value is
/// the string `value`, and re-scanning that value from the text decodes it at
/// `offsets`. Returns the value's span.
fn assert_first_entry_rescans(text: &str, key: &str, value: &str, offsets: &[usize]) -> Span {
    let out = parse_clean(text);
    let Value::Object(map) = &out.documents[0].root.value else {
        panic!("{text:?}: {:?}", out.documents)
    };
    assert_eq!(map.entries[0].key, key, "{text:?}");
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String(value.into()), "{text:?}");
    let (decoded, got, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(decoded, value, "{text:?}");
    assert_eq!(got, offsets, "{text:?}");
    node.span
}

fn assert_parsed(text: &str, documents: &[(Span, Value)], errors: &[(Span, &str)]) {
    let out = parse(text, &Limits::default());
    let got: Vec<(Span, Value)> = out
        .documents
        .iter()
        .map(|d| (d.root.span, d.root.value.clone()))
        .collect();
    assert_eq!(got, documents);
    let got: Vec<(Span, &str)> = out
        .errors
        .iter()
        .map(|e| (e.span, e.message.as_str()))
        .collect();
    assert_eq!(got, errors);
}

/// yaml_spans: a block scalar header with an anchor before its indentation indicator,
/// alone on its line under its key. The re-scan took the indentation from the content
/// (two spaces, so no content) instead of from the key's column, and decoded "" where
/// the loader read " \n".
#[test]
fn properties_before_an_indentation_indicator_under_its_key_count_from_the_key() {
    let text = "t:\n &a |1\n  ";
    let out = parse_clean(text);
    let Value::Object(map) = &out.documents[0].root.value else {
        panic!("{:?}", out.documents[0].root.value)
    };
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String(" \n".into()));
    assert_eq!(node.span, Span::new(7, 9));
    let (decoded, offsets, end) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(Value::String(decoded), node.value);
    assert_eq!(offsets, [11, 12]);
    assert_eq!(end, 12);
}

/// yaml_spans: a top-level folded scalar followed by a line that starts with a byte
/// order mark and `...`. saphyr ends the scalar at the mark (a token of its own) and
/// loads "", but the re-scan read the mark and the dots as content, mapping characters
/// past the scalar's span.
#[test]
fn a_top_level_block_scalar_ends_at_a_byte_order_mark() {
    let text = "\u{FEFF}...\n%\u{1F600}\n---\r\n\r>\r\u{FEFF}...";
    let out = parse(text, &Limits::default());
    // The first `---` section starts with `...` after the file's byte order mark, which
    // go-yaml strips: it fails as it does without the mark (see
    // `a_document_end_after_a_byte_order_mark_is_a_marker`).
    let errors: Vec<(usize, &str)> = out
        .errors
        .iter()
        .map(|e| (e.span.start, e.message.as_str()))
        .collect();
    // The mark before the last `...` fails the second section: go-yaml reads content
    // there, saphyr a document end (`marks_before_markers`).
    assert_eq!(
        errors,
        [
            (3, "did not find expected node content"),
            (21, MARK_BEFORE_MARKER)
        ]
    );
    assert!(out.documents.is_empty());
    let out = parse(&text[..21], &Limits::default());
    assert_eq!(out.documents.len(), 1);
    let root = &out.documents[0].root;
    assert_eq!(root.value, Value::String(String::new()));
    assert_eq!(root.style, ScalarStyle::Folded);
    // The `\u{FEFF}...` after it is a document end marker too, blanked with what follows.
    assert_eq!(root.span, Span::new(19, 20));
    let (decoded, offsets, _) = decode_with_offsets(text, root.span, root.style).unwrap();
    assert_eq!(decoded, "");
    assert!(offsets.is_empty());
}

/// The block scalar of a sequence entry, whose header is alone on the line after the
/// entry indicator and a comment (`- #`): found by yaml_spans. The re-scan did not
/// recognise the entry through the comment, found no parent indentation, and decoded
/// "" where the loader read " \n" (content indented 3 from the entry's column 0).
#[test]
fn a_comment_after_an_entry_indicator_keeps_the_entry_as_the_parent() {
    let text = "- #\n |3\n    ";
    let out = parse_clean(text);
    let Value::Array(items) = &out.documents[0].root.value else {
        panic!("{:?}", out.documents[0].root.value)
    };
    let node = &items[0];
    assert_eq!(node.value, Value::String(" \n".into()));
    assert_eq!(node.span, Span::new(5, 7));
    let (decoded, offsets, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(Value::String(decoded), node.value);
    assert_eq!(offsets, [11, 12]);
}

/// The same with a comment after a key (`k: # c`), found in review of the above: the
/// re-scan read `c` as the end of the line and took no parent, decoding "x\n" where the
/// loader read " x\n".
#[test]
fn a_comment_after_a_key_keeps_the_key_as_the_parent() {
    for (text, start) in [
        ("k: # c\n |1\n  x\n", 8),
        ("\"k #\": # c\n |1\n  x\n", 12),
        ("- k: # c\n   |1\n    x\n", 12),
    ] {
        let out = parse(text, &Limits::default());
        assert!(out.errors.is_empty(), "{text:?}: {:?}", out.errors);
        let root = &out.documents[0].root.value;
        let map = match root {
            Value::Object(map) => map,
            Value::Array(items) => match &items[0].value {
                Value::Object(map) => map,
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        };
        let node = &map.entries[0].value;
        assert_eq!(node.value, Value::String(" x\n".into()), "{text:?}");
        assert_eq!(node.span.start, start, "{text:?}");
        let (decoded, _, _) = decode_with_offsets(text, node.span, node.style).unwrap();
        assert_eq!(Value::String(decoded), node.value, "{text:?}");
    }
}

/// A comment ends at a lone CR, as every YAML line does: the loader skipped properties
/// and a comment up to the next LF, so a plain value after `k: &a !t # c` and a lone CR
/// got an empty span past its text (found by the header sweep in `source::inner`).
#[test]
fn a_comment_before_a_value_ends_at_a_lone_carriage_return() {
    let text = "k: &a !t # c\r    x\r";
    let out = parse_clean(text);
    let Value::Object(map) = &out.documents[0].root.value else {
        panic!("{:?}", out.documents[0].root.value)
    };
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String("x".into()));
    assert_eq!(node.span, Span::new(17, 18));
}

/// Properties after an entry indicator (`- &a`), and a byte order mark before the line
/// of the key: the header on the next line counts its indentation from the entry's or
/// the key's column (found by the header sweep in `source::inner`).
#[test]
fn entry_properties_and_a_leading_byte_order_mark_keep_the_parent_column() {
    let text = "a:\n  - &a\n    |1 # c\n     x\n";
    let out = parse_clean(text);
    let Value::Object(map) = &out.documents[0].root.value else {
        panic!()
    };
    let Value::Array(items) = &map.entries[0].value.value else {
        panic!()
    };
    assert_eq!(items[0].value, Value::String("  x\n".into()));
    let (decoded, offsets, _) = decode_with_offsets(text, items[0].span, items[0].style).unwrap();
    assert_eq!(decoded, "  x\n");
    assert_eq!(offsets, [24, 25, 26, 27]);

    let text = "\u{feff}- k: # c\n   |1\n   \n    x\n";
    let out = parse_clean(text);
    let Value::Array(items) = &out.documents[0].root.value else {
        panic!()
    };
    let Value::Object(map) = &items[0].value else {
        panic!()
    };
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String("\n x\n".into()));
    let (decoded, _, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(decoded, "\n x\n");
}

/// An anchor name that go-yaml ends at `:` (`&n:-` is the anchor `n`, then `:-`), where
/// saphyr reads `n:-`: the loader mixed both readings (a tab go-yaml skips after the
/// anchor was blanked inside saphyr's block scalar), and the value matched neither the
/// file nor kubectl (found by fuzzing, yaml_spans). The document now fails, naming the
/// anchor, and the next `---` section is read.
#[test]
fn an_anchor_name_go_yaml_ends_early_fails_its_document() {
    for (text, at) in [
        ("- &n:-\t \n   |1  \n    tt! pars|#ing\n", 2),
        ("k: &n:- |1\n \tx\n", 3),
        ("a: &n:- x\n", 3),
        ("- *a?\n", 2),
    ] {
        let out = parse(text, &Limits::default());
        assert!(out.documents.is_empty(), "{text:?}");
        let errors: Vec<(usize, &str)> = out
            .errors
            .iter()
            .map(|e| (e.span.start, e.message.as_str()))
            .collect();
        assert_eq!(
            errors,
            [(
                at,
                "go-yaml (kubectl) ends this anchor or alias name before a character that crdlint's parser reads as part of it; crdlint cannot read this document as kubectl does"
            )],
            "{text:?}"
        );
    }
    // The other sections are unaffected.
    let out = parse("a: &n:- x\n---\nb: &m y\n", &Limits::default());
    assert_eq!(out.documents.len(), 1);
    assert_eq!(out.errors.len(), 1);
}

/// yaml_spans: a document end marker after a byte order mark at the start of the file
/// (`\u{FEFF}...`), then a directive after a lone CR. The marker was not seen, so the
/// directive line was left to saphyr, which shifted every later span by the bytes of
/// the directive's multi-byte characters beyond their count (3).
#[test]
fn a_document_end_after_a_byte_order_mark_is_a_marker() {
    let text = "\u{FEFF}...\r%\u{2502}\u{80}\n---\n{c: \"}1\",g\"}";
    let out = parse(text, &Limits::default());
    let spans: Vec<(Span, Value)> = out
        .documents
        .iter()
        .filter_map(|d| match &d.root.value {
            Value::Object(map) => Some((
                map.entries[0].value.span,
                map.entries[0].value.value.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(spans, [(Span::new(22, 26), Value::String("}1".into()))]);
    let node = &spans[0];
    let (decoded, offsets, _) =
        decode_with_offsets(text, node.0, ScalarStyle::DoubleQuoted).unwrap();
    assert_eq!(decoded, "}1");
    assert_eq!(offsets, [23, 24]);
    // Without the mark, the same reading, 3 bytes earlier.
    let out = parse(&text[3..], &Limits::default());
    let Value::Object(map) = &out.documents.last().unwrap().root.value else {
        panic!()
    };
    assert_eq!(map.entries[0].value.span, Span::new(19, 23));
}

/// The same after a lone CR (the mark then starts the file's second line), found by
/// minimizing the full yaml_spans input again after the previous fix.
#[test]
fn a_document_end_after_a_byte_order_mark_on_a_later_line_is_a_marker() {
    let text = "\r\u{FEFF}...\r%\u{2500}\n---\n{r: \"n\",\"\"}";
    let out = parse(text, &Limits::default());
    let Value::Object(map) = &out.documents.last().unwrap().root.value else {
        panic!("{:?}", out.documents)
    };
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String("n".into()));
    assert_eq!(node.span, Span::new(21, 24));
    let (decoded, offsets, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(decoded, "n");
    assert_eq!(offsets, [22]);
}

/// yaml_spans: a block scalar in a sequence entry at the start of a file with a byte
/// order mark, its content line holding a tab. The outline of go-yaml's scanner counted
/// the mark as a column, ended the scalar early and listed the tab in its content as a
/// blank go-yaml skips, so the loader read "| \n" where the file says "|\t\n".
#[test]
fn a_leading_byte_order_mark_takes_no_column_in_the_outline() {
    let text = "\u{FEFF}- |\n |\t";
    let out = parse_clean(text);
    let Value::Array(items) = &out.documents[0].root.value else {
        panic!("{:?}", out.documents)
    };
    assert_eq!(items[0].value, Value::String("|\t\n".into()));
    let (decoded, offsets, _) = decode_with_offsets(text, items[0].span, items[0].style).unwrap();
    assert_eq!(decoded, "|\t\n");
    assert_eq!(offsets, [8, 9, 10]);
}

/// yaml_spans: `...` after a byte order mark on a later line is content to go-yaml
/// (which counts the mark's column) and a document end to saphyr; the loader mixed both
/// readings (a tab blanked for go-yaml's was block scalar content in saphyr's). Such a
/// section now fails, naming the mark.
#[test]
fn a_byte_order_mark_before_a_marker_on_a_later_line_fails_its_section() {
    let text = "\r\u{FEFF}...\r- |\n\t";
    let out = parse(text, &Limits::default());
    assert!(out.documents.is_empty(), "{:?}", out.documents);
    let errors: Vec<(usize, &str)> = out
        .errors
        .iter()
        .map(|e| (e.span.start, e.message.as_str()))
        .collect();
    assert_eq!(errors, [(1, MARK_BEFORE_MARKER)]);
    // Other sections are read.
    let out = parse("a: 1\n---\n\r\u{FEFF}---\n---\nb: 2\n", &Limits::default());
    assert_eq!(out.documents.len(), 2);
    assert_eq!(out.errors.len(), 1);
}

/// yaml_spans: a key that ends in `&` (`7 &:`) above a block scalar header. The re-scan
/// took `&:` for an anchor after the key, found no key, and decoded "" where the loader
/// read " \n".
#[test]
fn a_key_ending_in_an_ampersand_is_no_anchor() {
    assert_first_entry_rescans("7 &:\n |2\n   ", "7 &", " \n", &[11, 12]);
}

/// yaml_spans: a comment go-yaml's outline blanks (`|#`, no space before `#`) that
/// saphyr reads as block scalar content, below a line kubectl's reader refuses as a
/// separator (`---n`), after a section that already failed (a byte order mark before
/// `...`). The document holding the blanked comment was kept, with a space for the `#`:
/// - the failed section counted as a syntax error that had ended the stream, so the
///   refused separator was not reported (only the parser's own syntax errors end it:
///   a section dropped for go-yaml's sake fails alone);
/// - the comment's failure was charged to a chunk starting at `---n`, which is no chunk
///   boundary for kubectl.
///
/// kubectl's reader stops at `---n`: nothing from the `---` line before it is read.
#[test]
fn a_refused_separator_after_a_failed_section_ends_the_stream() {
    for (text, at) in [
        ("\r\u{FEFF}...\t\n---\n|\n---n\n|#", 18),
        ("\r\u{FEFF}...\n---\n|\n---n\n|#", 17),
    ] {
        let out = parse(text, &Limits::default());
        assert!(out.documents.is_empty(), "{text:?}: {:?}", out.documents);
        let errors: Vec<(usize, &str, usize)> = out
            .errors
            .iter()
            .map(|e| (e.span.start, e.message.as_str(), e.document))
            .collect();
        assert_eq!(
            errors,
            [
                (1, MARK_BEFORE_MARKER, 0),
                (at, "invalid Yaml document separator: n", 0)
            ],
            "{text:?}"
        );
    }
}

/// yaml_spans: a key that starts with `-` and a quote (`-'`, a plain scalar) above a
/// block scalar header. The re-scan took the quote for the start of a quoted scalar,
/// missed the comment after the key, found no key and decoded "" where the loader read
/// " \n".
#[test]
fn a_quote_after_a_dash_opens_no_quoted_scalar() {
    let span = assert_first_entry_rescans("-':\t#\n |1\n  ", "-'", " \n", &[11, 12]);
    assert_eq!(span, Span::new(7, 9));
}

/// Sweeps of key shapes above a block scalar header (run through the yaml_spans
/// target): the keys `:'` and `a ['#` are plain scalars too; the re-scan took their
/// quote (after a `:`, then after a `[` it took for a flow collection) for a quoted
/// scalar. Quotes and brackets open something only where a node starts, or inside a
/// flow collection.
#[test]
fn a_quote_or_bracket_inside_a_plain_key_opens_nothing() {
    assert_first_entry_rescans(":':\t#\n |1\n  \n", ":'", " \n", &[11, 12]);
    assert_first_entry_rescans("a ['#:\t#\n |1\n  \n", "a ['#", " \n", &[14, 15]);
}

/// Sweep of keys on the header's line (through the yaml_spans target): an indented
/// `---` (` ---: |1`) is a plain key, not a document marker, so the content is indented
/// from its column; the re-scan took any `---` after the indentation for a marker and
/// decoded "  x\n" where the loader read " x\n".
#[test]
fn an_indented_dash_key_is_no_document_marker() {
    assert_first_entry_rescans(" ---: |1\n   x\n", "---", " x\n", &[11, 12, 13]);
}

/// Sweep of node properties and document markers (through the yaml_spans target): an
/// anchor alone on a line between a key and its block scalar's header (`k:`, `  &a`,
/// `  |2`) belongs to the scalar's node; the content is indented from the key's column
/// (0 + 2), so `   a` reads " a\n". The re-scan looked for the key on the anchor's line,
/// found none and decoded "a\n".
#[test]
fn properties_alone_on_a_line_above_a_header_belong_to_its_node() {
    let span = assert_first_entry_rescans("k:\n  &a\n  |2\n   a", "k", " a\n", &[15, 16, 17]);
    assert_eq!(span, Span::new(10, 17));
}

/// yaml_spans (session 19): `  i: |\n   d\r .e` without a final line break. The lone
/// CR ends the content line `   d`; ` .e` is after the mapping (content kubectl never
/// reads, blanked). Unterminated, saphyr read the blanked last line as one more empty
/// line of the literal ("d\n\n"; go-yaml reads "d\n"), and the re-scan disagreed. The
/// pipeline parses every text with a final line break, as kubectl's line reader gives
/// it; so terminated, the value is "d\n" and the re-scan agrees.
#[test]
fn a_blanked_last_line_after_a_lone_cr_ends_the_literal() {
    let text = crdlint::check::load::line_terminated("  i: |\n   d\r .e".to_string());
    assert_eq!(text, "  i: |\n   d\r .e\n");
    let out = parse(&text, &Limits::default());
    let Value::Object(map) = &out.documents[0].root.value else {
        panic!("{:?}", out.documents)
    };
    let node = &map.entries[0].value;
    assert_eq!(node.value, Value::String("d\n".into()));
    assert_eq!(node.span, Span::new(5, 11));
    let (decoded, offsets, _) = decode_with_offsets(&text, node.span, node.style).unwrap();
    assert_eq!(decoded, "d\n");
    assert_eq!(offsets, [10, 11]);
    let errors: Vec<&str> = out.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        errors,
        [
            "kubectl never reads this: it reads one document per `---` section, and this is after the first"
        ]
    );
}

/// yaml_spans (session 19): a `|-` scalar whose content ends at a lone CR followed by
/// a less-indented line (` -yyyyyyyyy`), which ends the root mapping: kubectl never reads it.
/// The loader gives saphyr that content as a comment line, found from the line's start;
/// the start was looked for after LF only, so the line became spaces after its blank,
/// which the still open block scalar took as one more content line ("x\n    ").
#[test]
fn ignored_content_after_a_lone_cr_does_not_extend_a_block_scalar() {
    let text = "  a:\n    b: |-\n       x\r -yyyyyyyyy\n";
    let out = parse(text, &Limits::default());
    let Value::Object(root) = &out.documents[0].root.value else {
        panic!("{:?}", out.documents)
    };
    let Value::Object(a) = &root.entries[0].value.value else {
        panic!("{root:?}")
    };
    let node = &a.entries[0].value;
    assert_eq!(node.value, Value::String("x".into()));
    let (decoded, offsets, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(decoded, "x");
    assert_eq!(offsets, [22]);
    let errors: Vec<(Span, &str)> = out
        .errors
        .iter()
        .map(|e| (e.span, e.message.as_str()))
        .collect();
    assert_eq!(
        errors,
        [(
            Span::new(25, 25),
            "kubectl never reads this: it reads one document per `---` section, and this is after the first"
        )]
    );
}

/// yaml_spans: the parses that read a flow scalar's `:` as go-yaml does (`{a: b:}`:
/// each reveals the next such colon, as saphyr stops at the first) had a budget of
/// their own, beyond the file's: 278,402 bytes parsed for a 5,433-byte text. They share
/// the file's budget now, and a refusal left when it runs out says so.
#[test]
fn masked_colon_parses_share_the_file_parse_budget() {
    let filler: String = (0..1_000).map(|i| format!("k{i}: v\n")).collect();
    let chain: String = (0..60).map(|i| format!("a{i}: b{i}:, ")).collect();
    let text = format!("{filler}x: {{{chain}z: 1}}\n");
    let out = parse(&text, &Limits::default());
    let budget = (24 * text.len()).max(256 * 1024);
    assert!(
        out.bytes_parsed <= budget,
        "{} > {budget}",
        out.bytes_parsed
    );
    assert!(out.documents.is_empty());
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert!(
        out.errors[0].message.ends_with(
            "(crdlint stopped re-parsing this file at its parse budget, 24 times its size; kubectl may accept this line: see docs/limits.md)"
        ),
        "{}",
        out.errors[0].message
    );
    // A short chain is read as go-yaml reads it.
    let text = format!("{filler}x: {{a: b:, c: d:, e: f:}}\n");
    let out = parse(&text, &Limits::default());
    assert!(out.errors.is_empty(), "{:?}", out.errors);
}

/// A go-yaml differential (kubectl's reader: apimachinery's YAMLReader and
/// sigs.k8s.io/yaml, session 31): an empty block scalar header after the root of a
/// document (` |`, less indented than the root mapping), then `---`. kubectl never reads
/// the header and reads the next section as a document; saphyr took the marker line for
/// the scalar's content and wanted a document start there, and the loader, blanking from
/// that error to the end of its section, blanked the whole next document.
#[test]
fn an_ignored_block_scalar_header_before_a_marker_keeps_the_next_document() {
    let ignored = "kubectl never reads this: it reads one document per `---` section, and this is after the first";
    let read = |text: &str| {
        let out = parse(text, &Limits::default());
        let docs: Vec<(usize, serde_json::Value)> = out
            .documents
            .iter()
            .map(|d| (d.root.span.start, d.root.to_json()))
            .collect();
        let errors: Vec<(Span, String)> = out
            .errors
            .into_iter()
            .map(|e| (e.span, e.message))
            .collect();
        (docs, errors)
    };
    let (docs, errors) = read("  a: 1\n |\n---\nk: v\n");
    assert_eq!(
        docs,
        [
            (2, serde_json::json!({"a": 1})),
            (14, serde_json::json!({"k": "v"}))
        ]
    );
    assert_eq!(errors, [(Span::point(8), ignored.to_string())]);
    // The same after a nested block scalar and a blank line.
    let (docs, errors) = read("  a:\n    b: |-\n       x\n \n |\n---\nk: v\n");
    assert_eq!(
        docs,
        [
            (2, serde_json::json!({"a": {"b": "x"}})),
            (33, serde_json::json!({"k": "v"}))
        ]
    );
    assert_eq!(errors, [(Span::point(27), ignored.to_string())]);
}

/// The same differential: after a root mapping, a block scalar header less indented than
/// the root (`    k:`, `|1`) whose content saphyr calls misindented. go-yaml ended the
/// document at the header and never reads the scalar; crdlint refused the document
/// (4,223 of 40,000 sampled `header_context` texts, 260 now, all of other shapes). A
/// line of node properties only (`!t`) does not set the root's indentation.
#[test]
fn a_misindented_block_scalar_after_the_root_is_ignored_content() {
    let ignored = "kubectl never reads this: it reads one document per `---` section, and this is after the first";
    for (text, indicator) in [
        ("\n\n    !t k:\n|1\n  x\n", 12),
        ("\n\n    !t k:\n  |1\nx\n", 14),
        ("\n   ? k\n|1\n  x\n", 8),
    ] {
        let out = parse(text, &Limits::default());
        let docs: Vec<serde_json::Value> = out.documents.iter().map(|d| d.root.to_json()).collect();
        assert_eq!(docs, [serde_json::json!({"k": null})], "{text:?}");
        let errors: Vec<(Span, &str)> = out
            .errors
            .iter()
            .map(|e| (e.span, e.message.as_str()))
            .collect();
        assert_eq!(errors, [(Span::point(indicator), ignored)], "{text:?}");
    }
    // The root starts under its tag: the header is inside the mapping, which go-yaml
    // refuses too ("did not find expected key").
    let out = parse("\n    !t\n  k:\n  |2\n   x\n", &Limits::default());
    assert!(out.documents.is_empty());
    assert!(
        out.errors
            .iter()
            .any(|e| e.kind == crdlint::source::yaml::YamlErrorKind::Syntax),
        "{:?}",
        out.errors
    );
}

/// cel_rule crash (a fuzzed `lists.range(88888888888) == [5]`): the list was built
/// before the cost check that follows the call, and the allocation aborted the process
/// with no output. Now the call stops at the cost limit first, as the check after it
/// would, charged what cel-go charges (n + 11): more than the resource's whole budget,
/// so the rule reports running out of it, as the server's validator checks the actual
/// cost against the remaining budget first. The CRD is refused for its estimated cost.
#[test]
fn a_huge_lists_range_stops_at_the_cost_limit() {
    let output = assert_cmd::Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--no-config", "-o", "short"])
        .arg("testdata/fuzz/lists-range-huge.yaml")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout,
        "testdata/fuzz/lists-range-huge.yaml:15:7: error[cel-cost-total]: spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)
testdata/fuzz/lists-range-huge.yaml:21:21: error[cel-cost-rule]: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)
testdata/fuzz/lists-range-huge.yaml:21:21: error[cel-cost-total]: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema
testdata/fuzz/lists-range-huge.yaml:26:7: error[cel-runtime-error]: spec: Invalid value: \"object\": validation failed due to running out of cost budget, no further validation rules will be run
1 file, 2 documents (1 CRD, 1 custom resource): 4 errors, 0 warnings
"
    );
}

/// Hostile probing: a `%.Nf` precision above 65,535 panicked in Rust's formatter. The
/// server's printer keeps `uint8(N)` fraction digits at least, rounds at `int16(N)`,
/// pads `%.Ne` (a width there) to `uint16(N)` characters, and writes `%!(NOVERB)` for a
/// number past 10,000,009.
#[test]
fn a_format_precision_past_what_rust_formats_is_printed_as_the_server_prints_it() {
    let output = assert_cmd::Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--no-config", "-o", "short"])
        .arg("testdata/fuzz/format-huge-precision.yaml")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let at = "testdata/fuzz/format-huge-precision.yaml:34:7: error[cel-rule-failed]: spec: Invalid value: ";
    let expected = [
        "%!(NOVERB)".to_string(),
        format!("0.25{}", "0".repeat(42)),
        format!("0.5{}", "0".repeat(111)),
        "[  -2.500000×10⁰⁰]".to_string(),
    ];
    let mut want: String = expected.iter().map(|m| format!("{at}{m}\n")).collect();
    want.push_str("1 file, 2 documents (1 CRD, 1 custom resource): 4 errors, 0 warnings\n");
    assert_eq!(stdout, want);
}

/// cr_validate: a text ending in a `\` (`!\`). The scan for JSON surrogate escapes
/// skipped two bytes after each `\` and sliced past the end.
#[test]
fn a_text_ending_in_a_backslash_is_scanned_for_json_escapes_without_panic() {
    for text in ["!\\", "\\", "{\"a\": \"\\", "{\"a\": \"\\ud83d\\"] {
        let out = parse(text, &Limits::default());
        assert!(
            out.errors.iter().all(|e| e.span.end <= text.len()),
            "{text:?}: {:?}",
            out.errors
        );
    }
    let out = parse("!\\", &Limits::default());
    let errors: Vec<&str> = out.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        errors,
        ["while scanning a tag, did not find expected whitespace or line break"]
    );
}

/// yaml_spans: YAML right after a JSON value on the same line (`{...}-`, with the
/// fuzzer's lone CRs) is a stream of its own for kubectl, whose first line starts at the
/// `-`: a block scalar header `|1-` on the next line is indented one column from it. The
/// loader read " x\n y"; the offset mapping counted the `-` at its column in the file
/// (15) and re-scanned "x\ny".
#[test]
fn an_indentation_indicator_after_a_json_value_counts_from_the_yaml_stream() {
    let text = "{\"c\":{\"d\":\"x\"}}-\r|1-  # *\r  x\r  y\n";
    let out = parse_clean(text);
    assert_eq!(out.documents.len(), 2);
    let Value::Array(items) = &out.documents[1].root.value else {
        panic!("{:?}", out.documents[1].root.value)
    };
    let node = &items[0];
    assert_eq!(node.value, Value::String(" x\n y".into()));
    let (decoded, offsets, _) = decode_with_offsets(text, node.span, node.style).unwrap();
    assert_eq!(Value::String(decoded), node.value);
    assert_eq!(offsets, [27, 28, 29, 31, 32]);
}
