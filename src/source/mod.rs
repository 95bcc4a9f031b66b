//! Everything about getting bytes off disk and into spanned documents: walking paths,
//! reading files safely, parsing YAML/JSON the way Kubernetes does, and mapping
//! positions (including positions inside string scalars) back to the file.

pub mod file;
pub mod inner;
pub mod node;
pub mod read;
pub mod scalar;
pub mod span;
pub mod walk;
pub mod yaml;

pub use file::SourceFile;
pub use node::{Entry, Mapping, Node, ScalarStyle, Value};
pub use span::{LineIndex, Position, Span};

crate::declare_codes! {
    YAML_SYNTAX = "yaml-syntax", Error, "The file is not valid YAML or JSON";
    DUPLICATE_KEY = "duplicate-key", Error, "A mapping has the same key twice (strict decoding rejects it)";
    YAML_LIMIT = "yaml-limit", Error, "Alias expansion or nesting depth exceeds crdlint's safety limits";
    NOT_JSON = "not-json", Error, "YAML that cannot be converted to JSON (non-scalar keys, infinities), JSON numbers beyond float64";
    BINARY_FILE = "binary-file", Error, "The file is binary or not UTF-8 text";
    FILE_TOO_LARGE = "file-too-large", Error, "The file exceeds --max-file-size";
    IO_ERROR = "io-error", Error, "A path could not be read";
    IGNORED_CONTENT = "ignored-content", Warning, "Content kubectl never reads: after the first document of a `---` section";
    UNICODE_LINE_BREAK = "unicode-line-break", Warning, "A NEL, LS or PS character, which kubectl's YAML 1.1 reader takes for a line break";
}
