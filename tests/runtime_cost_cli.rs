//! The server's runtime CEL limits end to end: `crdlint check` on a CRD the server
//! accepts (every rule's static estimate is under its limits) and custom resources
//! whose actual cost is over them. The expected messages are the server's, recorded
//! with the reference validator (Kubernetes 1.35 libraries) for these same files.

use assert_cmd::Command;

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: teams.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: teams, singular: team, kind: Team, listKind: TeamList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              groups:
                type: array
                maxItems: 9
                items:
                  type: object
                  x-kubernetes-validations:
                  - rule: self.members.sort().size() > 0
                  - rule: self.members.distinct().size() > 0
                    message: members must not be empty
                  - rule: sets.equivalent(self.members, self.members)
                  properties:
                    members:
                      type: array
                      maxItems: 450
                      items: {type: integer}
              ranks:
                type: array
                maxItems: 800
                items: {type: integer}
                x-kubernetes-validations:
                - rule: self.sort() == self.sort()
                  message: ranks must sort
";

fn numbers(n: usize) -> String {
    (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

/// Writes the CRD and one resource with `spec` and runs `crdlint check -o short`.
fn check(spec: &str) -> (String, i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("crd.yaml");
    std::fs::write(&crd, CRD).unwrap();
    let cr = dir.path().join("cr.yaml");
    std::fs::write(
        &cr,
        format!("apiVersion: example.com/v1\nkind: Team\nmetadata: {{name: t, namespace: default}}\nspec:\n{spec}"),
    )
    .unwrap();
    let (crd, cr) = (
        crd.to_string_lossy().into_owned(),
        cr.to_string_lossy().into_owned(),
    );
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .args(["check", "-o", "short", &crd, &cr])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap_or(-1),
        crd,
        cr,
    )
}

#[test]
fn rules_that_together_spend_the_budget_stop_where_the_server_stops() {
    // Nine groups of 450 members: three rules of about 405,000 each per group; the
    // ninth group finds the 10,000,000 budget spent (the static estimate allows it:
    // 3,645,135 per rule, 10,935,315 in total).
    let group = format!("  - members: [{}]\n", numbers(450));
    let (out, status, _, cr) = check(&format!("  groups:\n{}", group.repeat(9)));
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{cr}:14:5: error[cel-runtime-error]: spec.groups[8]: Invalid value: \"object\": validation failed due to running out of cost budget, no further validation rules will be run\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
        )
    );
}

#[test]
fn eight_groups_fit_in_the_budget() {
    let group = format!("  - members: [{}]\n", numbers(450));
    let (out, status, _, _) = check(&format!("  groups:\n{}", group.repeat(8)));
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        "2 files, 2 documents (1 CRD, 1 custom resource): 0 errors, 0 warnings\n"
    );
}

#[test]
fn one_call_over_the_per_call_limit_stops_the_rule_and_all_later_ones() {
    // Sorting 800 integers costs 1,280,011 in one call: over the 1,000,000 per-call
    // limit (the static estimate of the rule, 2,624,024, is under the per-rule limit).
    let (out, status, _, cr) = check(&format!("  ranks: [{}]\n", numbers(800)));
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{cr}:5:10: error[cel-runtime-error]: spec.ranks: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ranks must sort\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
        )
    );
}

#[test]
fn the_per_call_limit_boundary_is_the_servers() {
    // `self.sort() == self.sort()` on 499 integers costs 996,078; on 500, 1,000,026
    // and more: the server accepts the first and stops the second.
    let (out, status, _, _) = check(&format!("  ranks: [{}]\n", numbers(499)));
    assert_eq!(status, 0, "{out}");
    let (out, status, _, cr) = check(&format!("  ranks: [{}]\n", numbers(500)));
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{cr}:5:10: error[cel-runtime-error]: spec.ranks: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ranks must sort\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
        )
    );
}
