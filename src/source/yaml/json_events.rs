//! saphyr's events for a text that is one JSON value, read without saphyr.
//!
//! Why: saphyr's scanner holds back every token that follows a flow collection which
//! could still turn out to be an implicit key (`{...}: value`), and inside flow
//! collections it never gives up on that (YAML's one-line and 1024-character rules for
//! such keys are applied in block context only). A JSON document's root `{` is such a
//! candidate, so saphyr queued the whole document as tokens, about 250 bytes each,
//! before its first event: a 30 MB file of small numbers took 5.8 GB and 17 s, to learn
//! that the object was over the server's request limit. This walk emits the same
//! events, with the same spans, as it reads (`tests::json_events_match_saphyr` compares
//! them), so the tree builder is the only consumer either way.
//!
//! Only texts that kubectl decodes as JSON and that hold exactly one value come here;
//! they have been validated (`json_stream::is_single_json`), so the walk meets no
//! syntax error. Should it meet something it does not expect anyway, it says so and the
//! caller parses the text with saphyr, as before.

use std::borrow::Cow;

use saphyr_parser::{Event, ScalarStyle};

/// saphyr counts open flow collections in a `u8` and refuses the 256th.
const SAPHYR_MAX_FLOW_LEVELS: usize = 255;

pub(super) enum Walk {
    /// All events were emitted.
    Done,
    /// The bracket at this offset opens the 256th nested collection: saphyr refuses it
    /// ("recursion limit exceeded") before emitting any event but `StreamStart` (its
    /// tokens were all held back), and so did this walk.
    TooDeep(usize),
    /// The text is not what this walk reads; nothing should be kept from `emit`.
    Unexpected,
}

/// Feeds `emit` the events saphyr makes of `text` (one JSON value, maybe between white
/// space and after a byte order mark), each with its span in bytes.
pub(super) fn walk<'t>(text: &'t str, mut emit: impl FnMut(Event<'t>, usize, usize)) -> Walk {
    let b = text.as_bytes();
    let mut p = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    p = skip_space(b, p);
    if b.get(p) != Some(&b'{') {
        return Walk::Unexpected;
    }
    emit(Event::StreamStart, 0, 0);
    if let Some(at) = too_deep(b, p) {
        return Walk::TooDeep(at);
    }
    emit(Event::DocumentStart(false), p, token_end(b, p + 1));
    // Open collections: `true` for a mapping. In a mapping, keys and values alternate;
    // the walk checks the JSON grammar only as far as it needs to (the text is valid).
    let mut open: Vec<bool> = Vec::new();
    loop {
        p = skip_space(b, p);
        let Some(&c) = b.get(p) else {
            return Walk::Unexpected;
        };
        match c {
            b'{' | b'[' => {
                let end = token_end(b, p + 1);
                let event = if c == b'{' {
                    Event::MappingStart(0, None)
                } else {
                    Event::SequenceStart(0, None)
                };
                emit(event, p, end);
                open.push(c == b'{');
                p = end;
            }
            b'}' | b']' => {
                if open.pop() != Some(c == b'}') {
                    return Walk::Unexpected;
                }
                let end = token_end(b, p + 1);
                let event = if c == b'}' {
                    Event::MappingEnd
                } else {
                    Event::SequenceEnd
                };
                emit(event, p, end);
                p = end;
                if open.is_empty() {
                    break;
                }
            }
            b',' | b':' => p += 1,
            b'"' => {
                let Some((value, close)) = string(text, p) else {
                    return Walk::Unexpected;
                };
                let end = token_end(b, close);
                emit(
                    Event::Scalar(value, ScalarStyle::DoubleQuoted, 0, None),
                    p,
                    end,
                );
                p = end;
            }
            _ => {
                // A number, `true`, `false` or `null`: saphyr's plain scalar, as written.
                let len = b[p..]
                    .iter()
                    .position(|c| matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                    .unwrap_or(b.len() - p);
                if len == 0 {
                    return Walk::Unexpected;
                }
                let value = Cow::Borrowed(&text[p..p + len]);
                emit(
                    Event::Scalar(value, ScalarStyle::Plain, 0, None),
                    p,
                    p + len,
                );
                p += len;
            }
        }
    }
    if !text[p..].trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Walk::Unexpected;
    }
    emit(Event::DocumentEnd, b.len(), b.len());
    emit(Event::StreamEnd, b.len(), b.len());
    Walk::Done
}

/// Where the value at `from` opens its 256th nested collection, if it does.
fn too_deep(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut p = from;
    while p < b.len() {
        match b[p] {
            b'{' | b'[' => {
                depth += 1;
                if depth > SAPHYR_MAX_FLOW_LEVELS {
                    return Some(p);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return None;
                }
            }
            b'"' => {
                // Skip the string: to its closing quote, past escaped characters.
                p += 1;
                while let Some(i) = memchr::memchr2(b'"', b'\\', &b[p..]) {
                    p += i;
                    if b[p] == b'"' {
                        break;
                    }
                    p += 2;
                }
            }
            _ => {}
        }
        p += 1;
    }
    None
}

fn skip_space(b: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(p) {
        p += 1;
    }
    p
}

/// saphyr ends a bracket's or a double-quoted scalar's token after the spaces and tabs
/// that follow it on its line (a plain scalar's ends with its last character).
fn token_end(b: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\t') = b.get(p) {
        p += 1;
    }
    p
}

/// The JSON string whose opening quote is at `start`: its value, and the offset after
/// its closing quote.
fn string(text: &str, start: usize) -> Option<(Cow<'_, str>, usize)> {
    let b = text.as_bytes();
    let body = start + 1;
    let close = body + memchr::memchr2(b'"', b'\\', &b[body..])?;
    if b[close] == b'"' {
        return Some((Cow::Borrowed(&text[body..close]), close + 1));
    }
    let mut value = String::with_capacity(close - body + 16);
    value.push_str(&text[body..close]);
    let mut p = close;
    loop {
        let next = p + memchr::memchr2(b'"', b'\\', &b[p..])?;
        value.push_str(&text[p..next]);
        if b[next] == b'"' {
            return Some((Cow::Owned(value), next + 1));
        }
        let escape = *b.get(next + 1)?;
        p = next + 2;
        let decoded = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = hex4(b, p)?;
                p += 4;
                // Surrogate escapes were masked before parsing (`json_surrogates`);
                // one left here is not for this walk.
                char::from_u32(unit)?
            }
            _ => return None,
        };
        value.push(decoded);
    }
}

fn hex4(b: &[u8], p: usize) -> Option<u32> {
    let digits = std::str::from_utf8(b.get(p..p + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use saphyr_parser::Parser;

    use super::super::{Limits, ParseOutput, parse, parse_with_saphyr_only};
    use super::walk;

    type Events = Vec<(String, usize, usize)>;

    /// saphyr's events with byte spans, or `None` when it refuses the text.
    fn saphyr_events(text: &str) -> Option<Events> {
        let bytes: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        let mut events = Vec::new();
        for item in Parser::new_from_str(text) {
            let (event, span) = item.ok()?;
            let start = bytes[span.start.index().min(bytes.len() - 1)];
            let end = bytes[span.end.index().min(bytes.len() - 1)];
            events.push((format!("{event:?}"), start, end));
        }
        Some(events)
    }

    fn walk_events(text: &str) -> Option<Events> {
        let mut events = Vec::new();
        let walked = walk(text, |event, start, end| {
            events.push((format!("{event:?}"), start, end))
        });
        matches!(walked, super::Walk::Done).then_some(events)
    }

    fn parse_with(text: &str, json_events: bool) -> ParseOutput {
        if json_events {
            parse(text, &Limits::default())
        } else {
            parse_with_saphyr_only(text, &Limits::default())
        }
    }

    /// Both readings of `text` agree: the events, where saphyr reads the text, and the
    /// documents and errors of the whole parse.
    fn assert_same_reading(text: &str) {
        if let Some(saphyr) = saphyr_events(text)
            && super::super::json_stream::is_single_json(text)
        {
            assert_eq!(walk_events(text), Some(saphyr), "events of {text:?}");
        }
        let (with, without) = (parse_with(text, true), parse_with(text, false));
        let documents = |out: &ParseOutput| {
            out.documents
                .iter()
                .map(|d| (d.index, d.root.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            documents(&with),
            documents(&without),
            "documents of {text:?}"
        );
        assert_eq!(with.errors, without.errors, "errors of {text:?}");
    }

    #[test]
    fn events_and_trees_match_saphyr_on_examples() {
        for text in [
            r#"{"a": [1, "x\n", true, null, -1.5e3], "b": {}}"#,
            " {\"a\":[]} ",
            "{\n  \"a\": 1\n}\n",
            r#"{"a": {} , "b": [1 , "x" ,{ } ] }  "#,
            "\u{FEFF}{\"a\":\"é\", \"b\":1}\t\n",
            "{\"a\":1}\r\n",
            r#"{"a" : 1 }"#,
            "{\n\t\"k\": [\n\t\t1,\n\t\t2\n\t]\n}",
            r#"{"s": "a\"b\u00e9\/\t\\", "e": "", "u": "\u0000\u001f\u00ff\uFFFD"}"#,
            r#"{"n": [0, -0, 1e5, 1E+2, 1.0, 9223372036854775807, 9223372036854775808, 1e400, -1e-400]}"#,
            r#"{"a": 1, "a": 2, "b": {"c": 1, "c": {"d": [1]}}}"#,
            r#"{"emoji": "\ud83d\ude00", "lone": "\ud800x", "😀": "é\u0085\u2028"}"#,
            "{\"del\": \"a\u{7f}b\", \"nel\": \"a\u{85}b\", \"bom\": \"a\u{feff}b\"}",
            r#"{"apiVersion": "v1", "kind": "List", "items": [{"a": [[[]]]}, {}]}"#,
            "{}",
            "{} \n\n",
        ] {
            assert_same_reading(text);
        }
    }

    fn json_files(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                json_files(&path, found);
            } else if path.extension().is_some_and(|e| e == "json") {
                found.push(path);
            }
        }
    }

    #[test]
    fn json_files_of_testdata_and_the_corpus_read_the_same() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        json_files(&root.join("testdata"), &mut files);
        let corpus = root.join("../shared/corpus");
        if corpus.is_dir() {
            json_files(&corpus, &mut files);
        } else {
            eprintln!(
                "skipping the corpus's JSON files: {} not found",
                corpus.display()
            );
        }
        let mut walked = 0;
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            walked += usize::from(super::super::json_stream::is_single_json(&text));
            assert_same_reading(&text);
        }
        assert!(
            walked >= 10,
            "only {walked} of {} files are one JSON value",
            files.len()
        );
    }

    #[test]
    fn texts_that_are_not_one_json_value_are_left_to_saphyr() {
        for text in [
            "[1]",
            "{} {}",
            "{}\n{}",
            "a: 1",
            "{a: 1}",
            "{\"a\": 1} x",
            "{\"a\":",
        ] {
            let kept = super::super::json_stream::is_single_json(text);
            assert!(!kept || text.trim_start().starts_with('{'), "{text:?}");
            assert_same_reading(text);
        }
    }

    #[test]
    fn deep_json_agrees() {
        // serde_json (and so `is_single_json`) stops at 128 levels; saphyr at 255.
        for depth in [1, 100, 127, 128, 129, 200, 255, 256, 300] {
            let text = format!("{}1{}", "{\"a\":[".repeat(depth), "]}".repeat(depth));
            assert_same_reading(&text);
        }
    }

    fn json_text() -> impl Strategy<Value = String> {
        let blank = prop::sample::select(vec!["", "", " ", "  ", "\t", "\n", "\r\n", " \n\t"]);
        let string = prop::collection::vec(
            prop::sample::select(vec![
                "a",
                "k",
                "é",
                "😀",
                "\\n",
                "\\\"",
                "\\\\",
                "\\/",
                "\\u00e9",
                "\\u0041",
                "\\ud83d\\ude00",
                "\\udc00",
                "\\t",
                " ",
                "#",
                ":",
                "- ",
                "\u{85}",
                "\u{7f}",
                "\u{feff}",
                "'",
                "{",
                "]",
                "\\u0000",
            ]),
            0..5,
        )
        .prop_map(|parts| format!("\"{}\"", parts.concat()));
        let scalar = prop_oneof![
            string.clone(),
            prop::sample::select(vec![
                "0",
                "-0",
                "1",
                "-1",
                "1.5",
                "1e5",
                "1E+2",
                "-2.5e-3",
                "1e400",
                "true",
                "false",
                "null",
                "9223372036854775808",
                "12345678901234567890123",
            ])
            .prop_map(str::to_string),
        ];
        let value = scalar.prop_recursive(5, 48, 6, move |inner| {
            let blank = blank.clone();
            let key = prop::sample::select(vec!["\"a\"", "\"b\"", "\"a\"", "\"\\u0061\"", "\"é\""]);
            prop_oneof![
                (
                    prop::collection::vec((inner.clone(), blank.clone()), 0..5),
                    blank.clone()
                )
                    .prop_map(|(items, b)| {
                        let items: Vec<String> = items
                            .into_iter()
                            .map(|(v, s)| format!("{s}{v}{s}"))
                            .collect();
                        format!("[{b}{}]", items.join(","))
                    }),
                (
                    prop::collection::vec((key, inner, blank.clone()), 0..5),
                    blank
                )
                    .prop_map(|(entries, b)| {
                        let entries: Vec<String> = entries
                            .into_iter()
                            .map(|(k, v, s)| format!("{s}{k}{s}:{s}{v}"))
                            .collect();
                        format!("{{{b}{}}}", entries.join(","))
                    }),
            ]
        });
        let key = prop::sample::select(vec!["\"a\"", "\"b\"", "\"kind\""]);
        (
            prop::collection::vec((key, value), 0..4),
            prop::bool::ANY,
            prop::sample::select(vec!["", " ", "\n", " \t\r\n "]),
        )
            .prop_map(|(entries, bom, tail)| {
                let entries: Vec<String> = entries
                    .into_iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect();
                let bom = if bom { "\u{FEFF}" } else { "" };
                format!("{bom}{{{}}}{tail}", entries.join(", "))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 400 } else { 4000 }))]
        #[test]
        fn generated_json_reads_the_same(text in json_text()) {
            // Every generated text is one JSON value, so the walk reads it.
            prop_assert!(super::super::json_stream::is_single_json(&text), "{text:?}");
            assert_same_reading(&text);
        }
    }
}
