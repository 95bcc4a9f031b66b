//! Inputs found by fuzzing (fuzz/), minimized, each with the exact behaviour that is now
//! expected. One test per finding; the comment says which target found it.

use crdlint::source::inner::{decode_with_offsets, offset_in_scalar};
use crdlint::source::yaml::{Limits, parse};
use crdlint::source::{ScalarStyle, Span, Value};

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
