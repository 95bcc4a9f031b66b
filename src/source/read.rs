//! Reading one input into text, refusing what cannot be a manifest before it costs
//! time or memory: oversized files (checked before reading), FIFOs and devices (which
//! could block forever), binary data and invalid UTF-8.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::walk::{Input, describe_io_error};

/// Why an input could not be turned into text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The path could not be opened or read (missing, permission denied…).
    Io(String),
    /// Larger than the configured limit: `size` when the file system tells it, `None`
    /// when reading stopped at the limit (standard input, a file that grew).
    TooLarge { size: Option<u64>, limit: u64 },
    /// A FIFO, socket or device: reading could block or never end.
    NotRegular(&'static str),
    /// Contains a NUL byte at this offset: binary data, not a manifest.
    Binary { offset: usize },
    /// Not valid UTF-8 from this offset.
    NotUtf8 { offset: usize },
}

fn bytes(n: u64) -> String {
    match n {
        1 => "1 byte".to_string(),
        n => format!("{n} bytes"),
    }
}

impl ReadError {
    pub fn message(&self) -> String {
        match self {
            ReadError::Io(m) => m.clone(),
            ReadError::TooLarge {
                size: Some(size),
                limit,
            } => format!(
                "file is {}, larger than the limit of {} (--max-file-size)",
                bytes(*size),
                bytes(*limit)
            ),
            ReadError::TooLarge { size: None, limit } => format!(
                "file is larger than the limit of {} (--max-file-size); reading stopped there",
                bytes(*limit)
            ),
            ReadError::NotRegular(kind) => format!("not a regular file ({kind}); not read"),
            ReadError::Binary { offset } => {
                format!("binary file (NUL byte at offset {offset}); not a YAML or JSON manifest")
            }
            ReadError::NotUtf8 { offset } => {
                format!(
                    "file is not valid UTF-8 (invalid byte at offset {offset}); Kubernetes manifests must be UTF-8"
                )
            }
        }
    }
}

/// Reads `input` completely, if it is at most `max_size` bytes of UTF-8 text.
pub fn read_input(input: &Input, max_size: u64) -> Result<String, ReadError> {
    read_input_into(input, max_size, Vec::new())
}

/// [`read_input`] into `buffer` (cleared first): a buffer kept from an earlier read is
/// filled again instead of fresh memory, which the kernel must zero page by page.
pub fn read_input_into(input: &Input, max_size: u64, buffer: Vec<u8>) -> Result<String, ReadError> {
    let bytes = match input {
        Input::Stdin => read_limited(std::io::stdin().lock(), max_size, 0, buffer)?,
        Input::Path(path) => read_file_into(path, max_size, buffer)?,
    };
    into_text(bytes)
}

/// The bytes of the regular file `path`, if there are at most `max_size` of them.
pub fn read_bytes(path: &Path, max_size: u64) -> Result<Vec<u8>, ReadError> {
    read_file_into(path, max_size, Vec::new())
}

fn read_file_into(path: &Path, max_size: u64, buffer: Vec<u8>) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io(describe_io_error(&e)))?;
    if let Some(kind) = special_file_kind(&meta) {
        return Err(ReadError::NotRegular(kind));
    }
    if meta.len() > max_size {
        return Err(ReadError::TooLarge {
            size: Some(meta.len()),
            limit: max_size,
        });
    }
    let file = File::open(path).map_err(|e| ReadError::Io(describe_io_error(&e)))?;
    // The size read at open is a good guess (one read call instead of a dozen).
    read_limited(file, max_size, meta.len(), buffer)
}

fn read_limited(
    reader: impl Read,
    max_size: u64,
    size_hint: u64,
    mut bytes: Vec<u8>,
) -> Result<Vec<u8>, ReadError> {
    bytes.clear();
    bytes.reserve(size_hint.min(max_size) as usize + 1);
    reader
        .take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(describe_io_error(&e)))?;
    if bytes.len() as u64 > max_size {
        // One byte past the limit is all that was read: the true size is unknown.
        return Err(ReadError::TooLarge {
            size: None,
            limit: max_size,
        });
    }
    Ok(bytes)
}

/// Validates text: NUL bytes mean binary; otherwise it must be UTF-8. A UTF-8 byte
/// order mark is allowed (YAML permits it) and kept, so offsets stay file offsets.
pub fn into_text(bytes: Vec<u8>) -> Result<String, ReadError> {
    if let Some(offset) = memchr::memchr(0, &bytes) {
        return Err(ReadError::Binary { offset });
    }
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })
}

#[cfg(unix)]
fn special_file_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_dir() {
        Some("a directory")
    } else {
        Some("not a file")
    }
}

#[cfg(not(unix))]
fn special_file_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    (!meta.is_file()).then_some("not a file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_binary_and_invalid_utf8_with_offsets() {
        assert_eq!(
            into_text(b"a: 1\n\0".to_vec()),
            Err(ReadError::Binary { offset: 5 })
        );
        assert_eq!(
            into_text(b"a: \xff".to_vec()),
            Err(ReadError::NotUtf8 { offset: 3 })
        );
        assert_eq!(into_text("a: é".as_bytes().to_vec()).unwrap(), "a: é");
    }

    #[test]
    fn oversized_files_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        std::fs::write(&path, "x".repeat(100)).unwrap();
        assert_eq!(
            read_input(&Input::Path(path), 10),
            Err(ReadError::TooLarge {
                size: Some(100),
                limit: 10
            })
        );
    }

    #[test]
    fn sizes_of_one_byte_are_singular() {
        let message = |size, limit| ReadError::TooLarge { size, limit }.message();
        assert_eq!(
            message(Some(1), 0),
            "file is 1 byte, larger than the limit of 0 bytes (--max-file-size)"
        );
        assert_eq!(
            message(None, 1),
            "file is larger than the limit of 1 byte (--max-file-size); reading stopped there"
        );
    }

    /// A stream (standard input) is read up to one byte past the limit: its size is
    /// unknown, and the message does not make one up.
    #[test]
    fn a_stream_over_the_limit_stops_one_byte_past_it() {
        let endless = std::io::repeat(b'y');
        let error = read_limited(endless, 10, 0, Vec::new()).unwrap_err();
        assert_eq!(
            error,
            ReadError::TooLarge {
                size: None,
                limit: 10
            }
        );
        assert_eq!(
            error.message(),
            "file is larger than the limit of 10 bytes (--max-file-size); reading stopped there"
        );
        let exact = read_limited(&b"0123456789"[..], 10, 0, Vec::new()).unwrap();
        assert_eq!(exact.len(), 10);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_without_blocking() {
        let result = read_input(&Input::Path("/dev/zero".into()), 10);
        assert_eq!(result, Err(ReadError::NotRegular("a device")));
    }
}
