//! Where and how Go's encoding/json refuses a JSON value: kubectl's decoder
//! (apimachinery's `YAMLOrJSONDecoder`) reports its syntax errors in these words
//! (`invalid character '"' after object key:value pair`), counting bytes from the start
//! of the stream. A walk of the states of Go's scanner (`encoding/json/scanner.go`),
//! for the value that serde_json refused.

/// Go's nesting limit (`maxNestingDepth`).
const MAX_DEPTH: usize = 10_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    /// Inside `{`: before a key's `:` (`true`) or after it.
    Object {
        key: bool,
    },
    Array,
}

/// The first error of Go's scanner in the JSON value that starts at or after `from`
/// (after white space): the offset of the byte it refuses and its message, or the end
/// of `text` and `unexpected EOF` when the value is cut short. `None` when the value
/// is complete.
pub(super) fn first_error(text: &str, from: usize) -> Option<(usize, String)> {
    walk(text.as_bytes(), from).err()
}

type Refusal = (usize, String);

fn walk(b: &[u8], from: usize) -> Result<(), Refusal> {
    let mut stack: Vec<Container> = Vec::new();
    let mut p = from;
    // Each step reads one value, then what ends it in its container.
    'value: loop {
        p = skip_space(b, p);
        let Some(&c) = b.get(p) else {
            return Err(eof(b));
        };
        match c {
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    return Err((p, refused(c, "exceeded max depth")));
                }
                p = skip_space(b, p + 1);
                let close = if c == b'{' { b'}' } else { b']' };
                match b.get(p) {
                    None => return Err(eof(b)),
                    Some(&x) if x == close => p += 1,
                    Some(_) if c == b'[' => {
                        stack.push(Container::Array);
                        continue 'value;
                    }
                    Some(b'"') => {
                        stack.push(Container::Object { key: true });
                        p = string(b, p)?;
                    }
                    Some(&x) => {
                        return Err((p, refused(x, "looking for beginning of object key string")));
                    }
                }
            }
            b'"' => p = string(b, p)?,
            b'-' | b'0'..=b'9' => p = number(b, p)?,
            b't' => p = literal(b, p, b"true")?,
            b'f' => p = literal(b, p, b"false")?,
            b'n' => p = literal(b, p, b"null")?,
            _ => return Err((p, refused(c, "looking for beginning of value"))),
        }
        // After a value: what its container expects next.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            p = skip_space(b, p);
            let Some(&c) = b.get(p) else {
                return Err(eof(b));
            };
            match (*top, c) {
                (Container::Object { key: true }, b':') => {
                    *top = Container::Object { key: false };
                    p += 1;
                    continue 'value;
                }
                (Container::Object { key: true }, _) => {
                    return Err((p, refused(c, "after object key")));
                }
                (Container::Object { key: false }, b',') => {
                    p = skip_space(b, p + 1);
                    match b.get(p) {
                        None => return Err(eof(b)),
                        Some(b'"') => {
                            *top = Container::Object { key: true };
                            p = string(b, p)?;
                        }
                        Some(&x) => {
                            return Err((
                                p,
                                refused(x, "looking for beginning of object key string"),
                            ));
                        }
                    }
                }
                (Container::Object { key: false }, b'}') | (Container::Array, b']') => {
                    stack.pop();
                    p += 1;
                }
                (Container::Object { key: false }, _) => {
                    return Err((p, refused(c, "after object key:value pair")));
                }
                (Container::Array, b',') => {
                    p += 1;
                    continue 'value;
                }
                (Container::Array, _) => return Err((p, refused(c, "after array element"))),
            }
        }
    }
}

fn skip_space(b: &[u8], mut p: usize) -> usize {
    while matches!(b.get(p), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        p += 1;
    }
    p
}

fn eof(b: &[u8]) -> Refusal {
    (b.len(), "unexpected EOF".to_string())
}

/// A string from its opening quote at `p`: the offset after its closing quote.
fn string(b: &[u8], mut p: usize) -> Result<usize, Refusal> {
    p += 1;
    loop {
        let Some(&c) = b.get(p) else {
            return Err(eof(b));
        };
        match c {
            b'"' => return Ok(p + 1),
            b'\\' => {
                p += 1;
                match b.get(p) {
                    None => return Err(eof(b)),
                    Some(b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"') => p += 1,
                    Some(b'u') => {
                        p += 1;
                        for _ in 0..4 {
                            match b.get(p) {
                                None => return Err(eof(b)),
                                Some(h) if h.is_ascii_hexdigit() => p += 1,
                                Some(&h) => {
                                    return Err((
                                        p,
                                        refused(h, "in \\u hexadecimal character escape"),
                                    ));
                                }
                            }
                        }
                    }
                    Some(&e) => return Err((p, refused(e, "in string escape code"))),
                }
            }
            c if c < 0x20 => return Err((p, refused(c, "in string literal"))),
            _ => p += 1,
        }
    }
}

/// A number from `p`: the offset after it (the byte that ends it is the container's).
fn number(b: &[u8], mut p: usize) -> Result<usize, Refusal> {
    let digits = |b: &[u8], mut p: usize| {
        while b.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        p
    };
    if b[p] == b'-' {
        p += 1;
        match b.get(p) {
            None => return Err(eof(b)),
            Some(b'0'..=b'9') => {}
            Some(&c) => return Err((p, refused(c, "in numeric literal"))),
        }
    }
    p = if b[p] == b'0' { p + 1 } else { digits(b, p) };
    if b.get(p) == Some(&b'.') {
        p += 1;
        match b.get(p) {
            None => return Err(eof(b)),
            Some(b'0'..=b'9') => p = digits(b, p),
            Some(&c) => return Err((p, refused(c, "after decimal point in numeric literal"))),
        }
    }
    if matches!(b.get(p), Some(b'e' | b'E')) {
        p += 1;
        if matches!(b.get(p), Some(b'+' | b'-')) {
            p += 1;
        }
        match b.get(p) {
            None => return Err(eof(b)),
            Some(b'0'..=b'9') => p = digits(b, p),
            Some(&c) => return Err((p, refused(c, "in exponent of numeric literal"))),
        }
    }
    Ok(p)
}

/// `true`, `false` or `null` from `p`.
fn literal(b: &[u8], p: usize, word: &[u8]) -> Result<usize, Refusal> {
    let name = std::str::from_utf8(word).unwrap_or("");
    for (i, &want) in word.iter().enumerate().skip(1) {
        match b.get(p + i) {
            None => return Err(eof(b)),
            Some(&c) if c == want => {}
            Some(&c) => {
                let context = format!("in literal {name} (expecting {})", quote_byte(want));
                return Err((p + i, refused(c, &context)));
            }
        }
    }
    Ok(p + word.len())
}

fn refused(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_byte(c))
}

/// Go's `quoteChar`: the byte as a character (Latin-1), quoted as `strconv.Quote`
/// writes it, between single quotes.
fn quote_byte(c: u8) -> String {
    let inner = match c {
        b'\'' => return "'\\''".to_string(),
        b'"' => return "'\"'".to_string(),
        0x07 => "\\a".to_string(),
        0x08 => "\\b".to_string(),
        0x0c => "\\f".to_string(),
        b'\n' => "\\n".to_string(),
        b'\r' => "\\r".to_string(),
        b'\t' => "\\t".to_string(),
        0x0b => "\\v".to_string(),
        b'\\' => "\\\\".to_string(),
        0x00..=0x1f | 0x7f => format!("\\x{c:02x}"),
        // Not printable for Go (C1 controls, no-break space, soft hyphen).
        0x80..=0xa0 | 0xad => format!("\\u{c:04x}"),
        c => char::from(c).to_string(),
    };
    format!("'{inner}'")
}
