//! The named formats of the CEL format library (`format.dns1123Label()`,
//! `format.named('uuid')`, …) and their `validate()` messages, which are apimachinery's
//! name-validation messages (util/validation for DNS names, api/validate/content for
//! label keys and values, whose length errors say "bytes").

use crate::names;

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

/// The messages of `validate(value)` (empty when valid).
pub fn validate(f: &NamedFormat, s: &str) -> Vec<String> {
    let fmts = crate::schema::formats::validates;
    match f.key {
        "dns1123Label" => names::is_dns1123_label(s),
        "dns1123Subdomain" => names::is_dns1123_subdomain(s),
        "dns1035Label" => names::is_dns1035_label(s),
        "qualifiedName" => names::is_qualified_name(s),
        "dns1123LabelPrefix" => names::is_dns1123_label(&names::mask_trailing_dash(s)),
        "dns1123SubdomainPrefix" => names::is_dns1123_subdomain(&names::mask_trailing_dash(s)),
        "dns1035LabelPrefix" => names::is_dns1035_label(&names::mask_trailing_dash(s)),
        "labelValue" => names::is_label_value(s),
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
