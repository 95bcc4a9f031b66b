//! Everything about getting bytes off disk and into spanned documents: walking paths,
//! reading files safely, parsing YAML/JSON the way Kubernetes does, and mapping
//! positions (including positions inside string scalars) back to the file.

pub mod file;
pub mod inner;
pub mod node;
pub mod scalar;
pub mod span;
pub mod walk;
pub mod yaml;

pub use file::SourceFile;
pub use node::{Entry, Mapping, Node, ScalarStyle, Value};
pub use span::{LineIndex, Position, Span};
