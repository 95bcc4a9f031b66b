//! The named formats of the CEL format library (`format.dns1123Label()`,
//! `format.named('uuid')`, …) and their `validate()` messages, which are apimachinery's
//! name-validation messages (util/validation for DNS names, api/validate/content for
//! label keys and values, whose length errors say "bytes").

/// One named format: its name as `format.named` knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedFormat {
    pub key: &'static str,
    /// The Go `Format.Name` (what equality compares).
    pub name: &'static str,
}

pub const FORMATS: &[NamedFormat] = &[
    NamedFormat {
        key: "dns1123Label",
        name: "DNS1123Label",
    },
    NamedFormat {
        key: "dns1123Subdomain",
        name: "DNS1123Subdomain",
    },
    NamedFormat {
        key: "dns1035Label",
        name: "DNS1035Label",
    },
    NamedFormat {
        key: "qualifiedName",
        name: "QualifiedName",
    },
    NamedFormat {
        key: "dns1123LabelPrefix",
        name: "DNS1123LabelPrefix",
    },
    NamedFormat {
        key: "dns1123SubdomainPrefix",
        name: "DNS1123SubdomainPrefix",
    },
    NamedFormat {
        key: "dns1035LabelPrefix",
        name: "DNS1035LabelPrefix",
    },
    NamedFormat {
        key: "labelValue",
        name: "LabelValue",
    },
    NamedFormat {
        key: "uri",
        name: "URI",
    },
    NamedFormat {
        key: "uuid",
        name: "uuid",
    },
    NamedFormat {
        key: "byte",
        name: "byte",
    },
    NamedFormat {
        key: "date",
        name: "date",
    },
    NamedFormat {
        key: "datetime",
        name: "datetime",
    },
];

pub fn lookup(key: &str) -> Option<&'static NamedFormat> {
    FORMATS.iter().find(|f| f.key == key)
}

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

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

fn lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn is_label(s: &str, first: fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && first(b[0])
        && lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| lower_alnum(c) || c == b'-')
}

fn is_subdomain(s: &str) -> bool {
    s.split('.').all(|l| is_label(l, lower_alnum))
}

fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !is_label(s, lower_alnum) {
        if is_subdomain(s) {
            errs.push("must not contain dots".into());
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

fn dns1123_subdomain(s: &str, unit: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(format!("must be no more than 253 {unit}"));
    }
    if !is_subdomain(s) {
        errs.push(regex_error(
            SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !is_label(s, |b| b.is_ascii_lowercase()) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

fn is_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && alnum(b[0])
        && alnum(b[b.len() - 1])
        && b.iter()
            .all(|&c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

fn qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".into());
            } else {
                errs.extend(
                    dns1123_subdomain(prefix, "bytes")
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".into());
    }
    if !is_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 bytes".into());
    }
    if !value.is_empty() && !is_label_key_name(value) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// apimachinery's `maskTrailingDash`, including its habit of dropping two characters.
fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        let cut = &name.as_bytes()[..name.len() - 2];
        format!("{}a", String::from_utf8_lossy(cut))
    } else {
        name.to_string()
    }
}

/// The messages of `validate(value)` (empty when valid).
pub fn validate(f: &NamedFormat, s: &str) -> Vec<String> {
    let fmts = crate::schema::formats::validates;
    match f.key {
        "dns1123Label" => dns1123_label(s),
        "dns1123Subdomain" => dns1123_subdomain(s, "characters"),
        "dns1035Label" => dns1035_label(s),
        "qualifiedName" => qualified_name(s),
        "dns1123LabelPrefix" => dns1123_label(&mask_trailing_dash(s)),
        "dns1123SubdomainPrefix" => dns1123_subdomain(&mask_trailing_dash(s), "characters"),
        "dns1035LabelPrefix" => dns1035_label(&mask_trailing_dash(s)),
        "labelValue" => label_value(s),
        "uri" => match super::url::parse_request_uri(s) {
            Ok(_) => vec![],
            Err(e) => vec![e],
        },
        "uuid" => (!fmts("uuid", s))
            .then(|| "does not match the UUID format".to_string())
            .into_iter()
            .collect(),
        "byte" => (!fmts("byte", s))
            .then(|| "invalid base64".to_string())
            .into_iter()
            .collect(),
        "date" => (!fmts("date", s))
            .then(|| "invalid date".to_string())
            .into_iter()
            .collect(),
        "datetime" => (!fmts("datetime", s))
            .then(|| "invalid datetime".to_string())
            .into_iter()
            .collect(),
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_apimachinery() {
        let f = |k: &str, s: &str| validate(lookup(k).unwrap(), s);
        assert!(f("dns1123Label", "my-name").is_empty());
        assert_eq!(f("dns1123Label", "a.b"), vec!["must not contain dots"]);
        assert_eq!(f("dns1123LabelPrefix", "my-name-"), Vec::<String>::new());
        assert_eq!(
            f("qualifiedName", "/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(f("uuid", "x"), vec!["does not match the UUID format"]);
        assert_eq!(f("uri", "x"), vec!["parse \"x\": invalid URI for request"]);
    }
}
