//! apimachinery's name and label format checks (`util/validation` and
//! `api/validate/content`: `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`,
//! `IsQualifiedName`, `IsValidLabelValue`) with their exact messages, and
//! `maskTrailingDash` for `generateName` prefixes. One implementation for CRD
//! validation, object metadata and the CEL `format` library.

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_EXAMPLES: &[&str] = &["MyName", "my.name", "123-abc"];

/// How a length limit is worded: `util/validation` counts characters, the newer
/// `api/validate/content` checks (label keys and values) bytes; both measure bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthUnit {
    Characters,
    Bytes,
}

/// `MaxLenError` (or its content-package form).
fn max_len_error(n: usize, unit: LengthUnit) -> String {
    match unit {
        LengthUnit::Characters => format!("must be no more than {n} characters"),
        LengthUnit::Bytes => format!("must be no more than {n} bytes"),
    }
}

/// `RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let ex: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        ex.join(" or ")
    )
}

fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// A label whose first byte satisfies `first`, then `[-a-z0-9]*`, ending in `[a-z0-9]`.
fn matches_label(s: &str, first: fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && first(b[0])
        && is_lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
}

fn matches_dns1123_subdomain(s: &str) -> bool {
    s.split('.')
        .all(|label| matches_label(label, is_lower_alnum))
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && alnum(b[0])
        && alnum(b[b.len() - 1])
        && b.iter()
            .all(|&c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

/// `IsDNS1123Label`.
pub fn is_dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63, LengthUnit::Characters));
    }
    if !matches_label(s, is_lower_alnum) {
        if matches_dns1123_subdomain(s) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1123Subdomain` (util/validation: lengths in characters).
pub fn is_dns1123_subdomain(s: &str) -> Vec<String> {
    dns1123_subdomain(s, LengthUnit::Characters)
}

/// `IsDNS1123Subdomain` with the length limit worded in `unit`.
pub fn dns1123_subdomain(s: &str, unit: LengthUnit) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len_error(253, unit));
    }
    if !matches_dns1123_subdomain(s) {
        errs.push(regex_error(
            SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1035Label`.
pub fn is_dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63, LengthUnit::Characters));
    }
    if !matches_label(s, |b| b.is_ascii_lowercase()) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `IsQualifiedName` / `IsLabelKey`.
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain(prefix, LengthUnit::Bytes)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, LABEL_KEY_EXAMPLES)
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!(
            "name part {}",
            max_len_error(63, LengthUnit::Bytes)
        ));
    }
    if !matches_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, LABEL_KEY_EXAMPLES)
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn is_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63, LengthUnit::Bytes));
    }
    if !value.is_empty() && !matches_label_key_name(value) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `maskTrailingDash`: a `generateName` may end in `-`, so the server checks the name
/// with that dash replaced — by slicing bytes, `name[:len(name)-2] + "a"`, which drops
/// two of them. A cut inside a multi-byte character keeps Go's broken bytes as U+FFFD
/// (such a name fails every check either way).
pub fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        let cut = &name.as_bytes()[..name.len() - 2];
        format!("{}a", String::from_utf8_lossy(cut))
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_apimachinery() {
        assert_eq!(
            is_dns1035_label("V1"),
            [
                "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
            ]
        );
        assert!(is_dns1123_subdomain("example.com").is_empty());
        assert_eq!(
            is_dns1123_subdomain("Bad_Name"),
            [
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert_eq!(is_dns1123_label("a.b"), ["must not contain dots"]);
        assert!(is_qualified_name("example.com/my-key_1").is_empty());
        assert_eq!(is_qualified_name("/x"), ["prefix part must be non-empty"]);
        assert!(is_label_value("").is_empty());
        assert_eq!(
            is_label_value(&"a".repeat(64)),
            ["must be no more than 63 bytes"]
        );
        assert_eq!(
            is_dns1123_label(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
    }

    #[test]
    fn qualified_name_prefix_lengths_are_in_bytes() {
        let long = format!("{}/name", "a".repeat(254));
        assert_eq!(
            is_qualified_name(&long),
            ["prefix part must be no more than 253 bytes"]
        );
        assert_eq!(
            dns1123_subdomain(&"a".repeat(254), LengthUnit::Characters),
            ["must be no more than 253 characters"]
        );
    }

    #[test]
    fn masking_drops_two_bytes_like_go() {
        assert_eq!(mask_trailing_dash("abc-"), "aba");
        assert_eq!(mask_trailing_dash("-"), "-");
        assert_eq!(mask_trailing_dash("ab"), "ab");
        // A cut inside "é" (two bytes): no panic, and the name stays invalid.
        assert_eq!(mask_trailing_dash("é-"), "\u{FFFD}a");
        assert_eq!(is_dns1123_subdomain(&mask_trailing_dash("é-")).len(), 1);
    }
}
