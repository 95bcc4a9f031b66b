//! The conversion webhook's `caBundle` as the server checks it on an update
//! (`webhook.ValidateCABundle`: client-go builds a TLS configuration from it, which
//! needs at least one PEM `CERTIFICATE` block that Go's x509 parser accepts).
//!
//! PEM blocks are found exactly as Go's `encoding/pem` finds them. Certificates are
//! checked as far as their outer DER structure, version, serial number and signature
//! algorithm (the checks Go makes first, with its messages) and for trailing bytes; a
//! certificate whose names, validity, key or extensions Go would refuse is taken as
//! valid (a placeholder or a truncated paste fails the first checks; a hand-made
//! certificate with a broken key is rare).

/// `Err(message)` with the server's text when no certificate of the bundle is usable.
pub fn validate(bundle: &[u8]) -> Result<(), String> {
    root_cert_pool(bundle).map_err(|e| format!("unable to load root certificates: {e}"))
}

/// client-go's `rootCertPool`.
fn root_cert_pool(bundle: &[u8]) -> Result<(), String> {
    // `AppendCertsFromPEM`: one usable certificate is enough.
    let mut rest = bundle;
    while !rest.is_empty() {
        let Some((block, next)) = pem_decode(rest) else {
            break;
        };
        rest = next;
        if block.kind == b"CERTIFICATE"
            && !block.has_headers
            && parse_certificate(&block.bytes).is_ok()
        {
            return Ok(());
        }
    }
    // client-go's `createErrorParsingCAData`: the first reason found.
    let mut rest = bundle;
    while !rest.is_empty() {
        let Some((block, next)) = pem_decode(rest) else {
            return Err("unable to parse bytes as PEM block".to_string());
        };
        rest = next;
        if block.kind != b"CERTIFICATE" || block.has_headers {
            continue;
        }
        if let Err(e) = parse_certificate(&block.bytes) {
            return Err(format!("failed to parse certificate: {e}"));
        }
    }
    Err("no valid certificate authority data seen".to_string())
}

/// A `[]byte` bad value as the server prints it: its JSON, a base64 string.
pub fn bad_value(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::from("\"");
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |acc, b| (acc << 8) | *b as u32) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push('"');
    out
}

struct Block {
    kind: Vec<u8>,
    has_headers: bool,
    bytes: Vec<u8>,
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::rfind(haystack, needle)
}

/// `getLine`: the first line without trailing spaces and tabs, the rest after its
/// newline, and the bytes consumed.
fn get_line(data: &[u8]) -> (&[u8], &[u8], usize) {
    let (mut i, j) = match data.iter().position(|&b| b == b'\n') {
        None => (data.len(), data.len()),
        Some(i) => (i, i + 1),
    };
    if j > i && i > 0 && data[i - 1] == b'\r' {
        i -= 1;
    }
    let mut line = &data[..i];
    while let [head @ .., b' ' | b'\t'] = line {
        line = head;
    }
    (line, &data[j..], j)
}

/// `pem.Decode`: the next block and the rest, or `None` when there is none.
fn pem_decode(data: &[u8]) -> Option<(Block, &[u8])> {
    const START: &[u8] = b"-----BEGIN ";
    const END: &[u8] = b"\n-----END ";
    const DASHES: &[u8] = b"-----";
    let mut rest = data;
    let mut end_trailer_index: isize = 0;
    loop {
        if end_trailer_index < 0 || end_trailer_index as usize > rest.len() {
            return None;
        }
        rest = &rest[end_trailer_index as usize..];
        let mut end_index = find(rest, END)? as isize;
        end_trailer_index = end_index + END.len() as isize;
        let Some(begin) = rfind(&rest[..end_index as usize], START) else {
            continue;
        };
        if begin > 0 && rest[begin - 1] != b'\n' {
            continue;
        }
        let skip = (begin + START.len()) as isize;
        rest = &rest[skip as usize..];
        end_index -= skip;
        end_trailer_index -= skip;
        let (type_line, after, consumed) = get_line(rest);
        rest = after;
        end_index -= consumed as isize;
        end_trailer_index -= consumed as isize;
        let Some(kind) = type_line.strip_suffix(DASHES) else {
            continue;
        };
        let mut has_headers = false;
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next, consumed) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            has_headers = true;
            rest = next;
            end_index -= consumed as isize;
            end_trailer_index -= consumed as isize;
        }
        if has_headers && end_index < 0 {
            continue;
        }
        if end_trailer_index < 0 || end_trailer_index as usize > rest.len() {
            continue;
        }
        let trailer = &rest[end_trailer_index as usize..];
        let trailer_len = kind.len() + DASHES.len();
        if trailer.len() < trailer_len {
            continue;
        }
        let (end_line, rest_of_end_line) = trailer.split_at(trailer_len);
        if !end_line.starts_with(kind) || !end_line.ends_with(DASHES) {
            continue;
        }
        if !get_line(rest_of_end_line).0.is_empty() {
            continue;
        }
        let mut bytes = Vec::new();
        if end_index > 0 {
            let text: Vec<u8> = rest[..end_index as usize]
                .iter()
                .copied()
                .filter(|b| *b != b' ' && *b != b'\t')
                .collect();
            match crate::model::decode::base64_decode(&text) {
                Ok(b) => bytes = b,
                Err(_) => continue,
            }
        }
        let after_end = (end_index + END.len() as isize - 1).max(0) as usize;
        let (_, next, _) = get_line(rest.get(after_end..).unwrap_or_default());
        return Some((
            Block {
                kind: kind.to_vec(),
                has_headers,
                bytes,
            },
            next,
        ));
    }
}

/// One DER element: (tag byte(s), contents, rest). `None` when malformed (cryptobyte's
/// rules: definite minimal lengths).
fn read_element(data: &[u8]) -> Option<(u32, &[u8], &[u8])> {
    let (&first, mut rest) = data.split_first()?;
    let mut tag = first as u32;
    if first & 0x1f == 0x1f {
        // High tag number form: base-128, minimal, at least 31.
        let mut number: u32 = 0;
        loop {
            let (&b, r) = rest.split_first()?;
            rest = r;
            if number == 0 && b == 0x80 {
                return None;
            }
            number = number.checked_mul(128)? | (b & 0x7f) as u32;
            if b & 0x80 == 0 {
                break;
            }
        }
        if number < 31 {
            return None;
        }
        tag = ((first as u32 & 0xe0) << 24) | number;
    }
    let (&len_byte, r) = rest.split_first()?;
    rest = r;
    let len = if len_byte & 0x80 == 0 {
        len_byte as usize
    } else {
        let n = (len_byte & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let mut len = 0usize;
        for &b in &rest[..n] {
            len = (len << 8) | b as usize;
        }
        if rest[0] == 0 || len < 128 {
            return None;
        }
        rest = &rest[n..];
        len
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

const SEQUENCE: u32 = 0x30;
const INTEGER: u32 = 0x02;

/// A DER INTEGER's contents are valid (non-empty, minimal); its sign.
fn integer_sign(contents: &[u8]) -> Option<i32> {
    match contents {
        [] => None,
        [0x00, b, ..] if b & 0x80 == 0 => None,
        [0xff, b, ..] if b & 0x80 != 0 => None,
        [first, ..] if first & 0x80 != 0 => Some(-1),
        _ => Some(if contents.iter().all(|b| *b == 0) {
            0
        } else {
            1
        }),
    }
}

/// The first checks of Go's `x509.ParseCertificate`, with its messages, and its last
/// one (no bytes after the certificate).
fn parse_certificate(der: &[u8]) -> Result<(), &'static str> {
    let malformed = "x509: malformed certificate";
    let (tag, cert, trailing) = read_element(der).ok_or(malformed)?;
    if tag != SEQUENCE {
        return Err(malformed);
    }
    let (tag, tbs, after_tbs) = read_element(cert).ok_or("x509: malformed tbs certificate")?;
    if tag != SEQUENCE {
        return Err("x509: malformed tbs certificate");
    }
    let mut tbs = tbs;
    let mut version: i64 = 0;
    if let Some((0xa0, explicit, rest)) = read_element(tbs) {
        let (tag, contents, after) = read_element(explicit).ok_or("x509: malformed version")?;
        if tag != INTEGER
            || !after.is_empty()
            || integer_sign(contents).is_none()
            || contents.len() > 8
        {
            return Err("x509: malformed version");
        }
        version = contents
            .iter()
            .fold(if contents[0] & 0x80 != 0 { -1i64 } else { 0 }, |acc, b| {
                (acc << 8) | *b as i64
            });
        tbs = rest;
    } else if tbs.first() == Some(&0xa0) {
        return Err("x509: malformed version");
    }
    if version < 0 {
        return Err("x509: malformed version");
    }
    if version + 1 > 3 {
        return Err("x509: invalid version");
    }
    let (tag, serial, after_serial) = read_element(tbs).ok_or("x509: malformed serial number")?;
    if tag != INTEGER {
        return Err("x509: malformed serial number");
    }
    match integer_sign(serial) {
        None => return Err("x509: malformed serial number"),
        Some(-1) => return Err("x509: negative serial number"),
        Some(_) => {}
    }
    // The signature algorithm is stated twice, inside the signed part and after it.
    let inner = read_element(after_serial)
        .filter(|(tag, _, _)| *tag == SEQUENCE)
        .ok_or("x509: malformed signature algorithm identifier")?
        .1;
    let outer = read_element(after_tbs)
        .filter(|(tag, _, _)| *tag == SEQUENCE)
        .ok_or("x509: malformed algorithm identifier")?
        .1;
    if inner != outer {
        return Err("x509: inner and outer signature algorithm identifiers don't match");
    }
    // (The names, validity, public key and extensions are not checked.)
    if !trailing.is_empty() {
        return Err("x509: trailing data");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed P-256 CA made for these tests (`openssl req -x509`).
    const CERT: &str = "-----BEGIN CERTIFICATE-----\n\
MIIBfjCCASWgAwIBAgIUMNMR43/anmNyjdxK/OXKyzt0Bj0wCgYIKoZIzj0EAwIw\n\
FTETMBEGA1UEAwwKd2ViaG9vay1jYTAeFw0yNjExMjQxMzU4NTdaFw0zNjExMjEx\n\
MzU4NTdaMBUxEzARBgNVBAMMCndlYmhvb2stY2EwWTATBgcqhkjOPQIBBggqhkjO\n\
PQMBBwNCAAR1MPlmBLb9yqwK21rwSokdFTnLEfvI+pW62DzyOy+/AX/wy1tD7nCM\n\
pVO+KuOITa9Ul8kRep3XQ+g1UTmLXh+1o1MwUTAdBgNVHQ4EFgQU/qhFR7A08YFm\n\
yOJHCBxpIsWU358wHwYDVR0jBBgwFoAU/qhFR7A08YFmyOJHCBxpIsWU358wDwYD\n\
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBnPYjrXvN4IWlFUCuAGPvL\n\
aQAUEfoPodTFjGFLxaJppwIgS7G/Ea5hQptAZphEdscH+ChzGTpFrXWyAnnb968q\n\
i1A=\n\
-----END CERTIFICATE-----\n\
";

    fn der() -> Vec<u8> {
        let body: String = CERT.lines().filter(|l| !l.starts_with("-----")).collect();
        crate::model::decode::base64_decode(body.as_bytes()).unwrap()
    }

    /// `der` as a PEM certificate block.
    fn pem(der: &[u8]) -> Vec<u8> {
        let b64 = bad_value(der);
        format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
            b64.trim_matches('"')
        )
        .into_bytes()
    }

    /// The parse errors crdoracle (Kubernetes 1.35) reported for the same bytes.
    #[test]
    fn certificate_checks_follow_go() {
        assert_eq!(validate(CERT.as_bytes()), Ok(()));
        assert_eq!(validate(CERT.replace('\n', "\r\n").as_bytes()), Ok(()));
        // One usable certificate is enough, wherever it is.
        let mut bundle = pem(&[0x30, 0x00]);
        bundle.extend_from_slice(CERT.as_bytes());
        assert_eq!(validate(&bundle), Ok(()));
        let fails = |der: &[u8]| {
            validate(&pem(der))
                .unwrap_err()
                .trim_start_matches(
                    "unable to load root certificates: failed to parse certificate: ",
                )
                .to_string()
        };
        assert_eq!(fails(&[0x30, 0x00]), "x509: malformed tbs certificate");
        let good = der();
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(fails(&trailing), "x509: trailing data");
        let version = good
            .windows(5)
            .position(|w| w == [0xa0, 0x03, 0x02, 0x01, 0x02])
            .unwrap();
        let mut v4 = good.clone();
        v4[version + 4] = 3;
        assert_eq!(fails(&v4), "x509: invalid version");
        let mut negative = good.clone();
        negative[version + 7] |= 0x80;
        assert_eq!(fails(&negative), "x509: negative serial number");
        let mut truncated = good.clone();
        truncated.truncate(good.len() - 10);
        assert_eq!(fails(&truncated), "x509: malformed certificate");
    }

    #[test]
    fn pem_errors_follow_client_go() {
        assert_eq!(
            validate(b"\n").unwrap_err(),
            "unable to load root certificates: unable to parse bytes as PEM block"
        );
        assert_eq!(
            validate(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n\n")
                .unwrap_err(),
            "unable to load root certificates: unable to parse bytes as PEM block"
        );
        assert_eq!(
            validate(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----").unwrap_err(),
            "unable to load root certificates: no valid certificate authority data seen"
        );
        assert_eq!(
            validate(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
                .unwrap_err(),
            "unable to load root certificates: failed to parse certificate: x509: malformed certificate"
        );
        assert_eq!(bad_value(b"\n"), "\"Cg==\"");
        assert_eq!(bad_value(b"ab"), "\"YWI=\"");
        assert_eq!(bad_value(b"abc"), "\"YWJj\"");
    }
}
