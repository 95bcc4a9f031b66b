//! The field paths the server prints for what every version shares.
//!
//! The server validates a CRD in its internal form, where the v1→internal conversion
//! moved a schema, subresources, printer columns or selectable fields that are the
//! same in every version (always, with one version) to the spec. Its errors then name
//! `spec.validation.openAPIV3Schema…`, `spec.subresources…`,
//! `spec.additionalPrinterColumns…` and `spec.selectableFields…`, and that is what
//! `kubectl apply` shows. crdlint checks such a part once, at the first version, finds
//! the node in the file with that path, and renames the path here, in the field, the
//! message and the detail (which can name schema paths too: "because it is defined
//! in …", "within …"); the span keeps pointing at the first version.

use crate::diag::Diagnostic;
use crate::model::crd::Crd;

use super::gojson::Hoisted;

/// The prefixes of the first version's paths the server names differently.
#[derive(Debug, Default)]
pub struct ServerPaths {
    renames: Vec<(&'static str, &'static str)>,
}

impl ServerPaths {
    pub fn new(crd: &Crd, hoisted: Hoisted) -> ServerPaths {
        let mut renames = Vec::new();
        let Some(first) = crd.versions.first() else {
            return ServerPaths { renames };
        };
        // Versions without a schema keep their own paths ("Required value").
        if hoisted.schema && first.schema.is_some() {
            renames.push((
                "spec.versions[0].schema.openAPIV3Schema",
                "spec.validation.openAPIV3Schema",
            ));
        }
        if hoisted.subresources && first.subresources.is_some() {
            renames.push(("spec.versions[0].subresources", "spec.subresources"));
        }
        if hoisted.columns && first.additional_printer_columns.is_some() {
            renames.push((
                "spec.versions[0].additionalPrinterColumns",
                "spec.additionalPrinterColumns",
            ));
        }
        if hoisted.selectable_fields && first.selectable_fields.is_some() {
            renames.push(("spec.versions[0].selectableFields", "spec.selectableFields"));
        }
        ServerPaths { renames }
    }

    /// Renames the hoisted paths in `d`'s field, message and detail.
    pub fn apply(&self, d: &mut Diagnostic) {
        if self.renames.is_empty() {
            return;
        }
        let old_field = d.field.clone();
        if let Some(field) = &mut d.field
            && let Some(renamed) = self.rename_path(field)
        {
            *field = renamed;
        }
        // The message is `<field>: <value part>: <detail>`; the value part (a rule's
        // text, a default) is the user's data and stays as written.
        if let (Some(old), Some(new)) = (&old_field, &d.field)
            && old != new
            && let Some(rest) = d.message.strip_prefix(old.as_str())
        {
            d.message = format!("{new}{rest}");
        }
        if let Some(detail) = &d.detail {
            let renamed = self.rename_within(detail);
            if &renamed != detail {
                if let Some(head) = d.message.strip_suffix(detail.as_str()) {
                    d.message = format!("{head}{renamed}");
                }
                d.detail = Some(renamed);
            }
        }
    }

    /// `path` with a hoisted prefix renamed, if it starts with one (whole segments).
    fn rename_path(&self, path: &str) -> Option<String> {
        self.renames.iter().find_map(|(from, to)| {
            let rest = path.strip_prefix(from)?;
            (rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
                .then(|| format!("{to}{rest}"))
        })
    }

    /// `text` with every path of a hoisted part renamed.
    fn rename_within(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (from, to) in &self.renames {
            if !out.contains(from) {
                continue;
            }
            let mut renamed = String::with_capacity(out.len());
            let mut rest = out.as_str();
            while let Some(at) = rest.find(from) {
                let after = &rest[at + from.len()..];
                let whole = after.is_empty()
                    || !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
                renamed.push_str(&rest[..at]);
                renamed.push_str(if whole { to } else { from });
                rest = after;
            }
            renamed.push_str(rest);
            out = renamed;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(renames: &[(&'static str, &'static str)]) -> ServerPaths {
        ServerPaths {
            renames: renames.to_vec(),
        }
    }

    #[test]
    fn renames_whole_segments_only() {
        let p = paths(&[(
            "spec.versions[0].schema.openAPIV3Schema",
            "spec.validation.openAPIV3Schema",
        )]);
        assert_eq!(
            p.rename_path("spec.versions[0].schema.openAPIV3Schema.properties[a].type")
                .as_deref(),
            Some("spec.validation.openAPIV3Schema.properties[a].type")
        );
        assert_eq!(
            p.rename_path("spec.versions[0].schema.openAPIV3Schema")
                .as_deref(),
            Some("spec.validation.openAPIV3Schema")
        );
        assert_eq!(
            p.rename_path("spec.versions[0].schema.openAPIV3SchemaX"),
            None
        );
        assert_eq!(
            p.rename_path("spec.versions[1].schema.openAPIV3Schema"),
            None
        );
    }

    #[test]
    fn renames_the_field_and_paths_in_the_detail_but_not_the_value() {
        let p = paths(&[(
            "spec.versions[0].schema.openAPIV3Schema",
            "spec.validation.openAPIV3Schema",
        )]);
        let field = "spec.versions[0].schema.openAPIV3Schema.properties[a]";
        let detail =
            "because it is defined in spec.versions[0].schema.openAPIV3Schema.not.properties[a]";
        let value = "\"spec.versions[0].schema.openAPIV3Schema\"";
        let mut d = Diagnostic::new(
            "x",
            crate::diag::Severity::Error,
            format!("{field}: Invalid value: {value}: {detail}"),
        );
        d.field = Some(field.to_string());
        d.detail = Some(detail.to_string());
        p.apply(&mut d);
        assert_eq!(
            d.message,
            format!(
                "spec.validation.openAPIV3Schema.properties[a]: Invalid value: {value}: because it is defined in spec.validation.openAPIV3Schema.not.properties[a]"
            )
        );
        assert_eq!(
            d.field.as_deref(),
            Some("spec.validation.openAPIV3Schema.properties[a]")
        );
    }
}
