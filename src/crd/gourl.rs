//! The parts of Go's `net/url.Parse` that decide what webhook URL validation reports.

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub opaque: String,
    pub user: Option<String>,
    pub host: String,
    pub path: String,
    pub raw_query: String,
    pub fragment: String,
}

fn unhex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Checks `%XX` escapes like Go's `unescape`; `host` also rejects characters that are
/// invalid in host names.
fn check_escapes(s: &str, host: bool) -> Result<(), String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len() || unhex(b[i + 1]).is_none() || unhex(b[i + 2]).is_none() {
                    let end = (i + 3).min(b.len());
                    return Err(format!("invalid URL escape {}", go_quote(&s[i..end])));
                }
                i += 3;
            }
            c => {
                if host && c < 0x80 && host_char_needs_escape(c) {
                    return Err(format!(
                        "invalid character {} in host name",
                        go_quote(&s[i..i + 1])
                    ));
                }
                i += 1;
            }
        }
    }
    Ok(())
}

fn go_quote(s: &str) -> String {
    crate::diag::gofmt::quote(s)
}

fn host_char_needs_escape(c: u8) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    !matches!(
        c,
        b'-' | b'_'
            | b'.'
            | b'~'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b':'
            | b'['
            | b']'
            | b'<'
            | b'>'
            | b'"'
    )
}

fn valid_optional_port(port: &str) -> bool {
    if port.is_empty() {
        return true;
    }
    match port.strip_prefix(':') {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

fn valid_userinfo(s: &str) -> bool {
    s.bytes().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b':'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'%'
                    | b'@'
            )
    })
}

fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(end) = host.rfind(']') else {
            return Err("missing ']' in host".to_string());
        };
        let port = &host[end + 1..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {} after host", go_quote(port)));
        }
        return Ok(host.to_string());
    }
    if let Some(i) = host.rfind(':') {
        let port = &host[i..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {} after host", go_quote(port)));
        }
    }
    check_escapes(host, true)?;
    Ok(host.to_string())
}

/// `url.Parse`; the error is the text after `parse "<url>": `.
fn parse_inner(raw: &str) -> Result<Url, String> {
    let (rest, fragment) = match raw.split_once('#') {
        Some((a, b)) => (a, Some(b)),
        None => (raw, None),
    };
    if rest.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_string());
    }
    let mut url = Url::default();
    if rest == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    // Scheme.
    let mut scheme_end = None;
    for (i, c) in rest.bytes().enumerate() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' || c == b'.' {
            if i == 0 {
                break;
            }
            continue;
        }
        if c == b':' {
            if i == 0 {
                return Err("missing protocol scheme".to_string());
            }
            scheme_end = Some(i);
        }
        break;
    }
    let mut rest = match scheme_end {
        Some(i) => {
            url.scheme = rest[..i].to_ascii_lowercase();
            &rest[i + 1..]
        }
        None => rest,
    };
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((a, q)) = rest.split_once('?') {
        url.raw_query = q.to_string();
        rest = a;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            if let Some(f) = fragment {
                url.fragment = f.to_string();
            }
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_string());
        }
    }
    if rest.starts_with("//") && (!url.scheme.is_empty() || !rest.starts_with("///")) {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        match authority.rfind('@') {
            Some(i) => {
                let userinfo = &authority[..i];
                if !valid_userinfo(userinfo) {
                    return Err("net/url: invalid userinfo".to_string());
                }
                url.user = Some(userinfo.to_string());
                url.host = parse_host(&authority[i + 1..])?;
            }
            None => url.host = parse_host(authority)?,
        }
        rest = path;
    }
    check_escapes(rest, false)?;
    url.path = rest.to_string();
    if let Some(f) = fragment {
        check_escapes(f, false)?;
        url.fragment = f.to_string();
    }
    Ok(url)
}

/// `url.Parse` with Go's error text (`parse "x": missing protocol scheme`).
pub fn parse(raw: &str) -> Result<Url, String> {
    parse_inner(raw).map_err(|e| format!("parse {}: {e}", go_quote(raw)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_go() {
        let u = parse("https://user:pw@example.com:8443/path?x=1#frag").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, "example.com:8443");
        assert_eq!(u.user.as_deref(), Some("user:pw"));
        assert_eq!(u.raw_query, "x=1");
        assert_eq!(u.fragment, "frag");
        assert_eq!(
            parse(":foo").unwrap_err(),
            "parse \":foo\": missing protocol scheme"
        );
        assert_eq!(
            parse("https://a b/").unwrap_err(),
            "parse \"https://a b/\": invalid character \" \" in host name"
        );
        assert_eq!(
            parse("https://host:x/").unwrap_err(),
            "parse \"https://host:x/\": invalid port \":x\" after host"
        );
        assert_eq!(parse("example.com/x").unwrap().host, "");
    }
}
