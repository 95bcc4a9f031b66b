//! A generated scale set for benchmarks: `n_crds` CRDs with CEL rules, defaults, list
//! types and formats, and `n_crs` custom resources spread over files of `per_file`
//! documents. Deterministic: the same arguments give the same bytes. About one
//! resource in a hundred is invalid (alternately a schema violation and a CEL rule
//! failure), so the report path is exercised too.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

pub const GROUP: &str = "bench.crdlint.dev";

/// What was written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Generated {
    pub crd_files: usize,
    pub cr_files: usize,
    pub bytes: u64,
    pub invalid: usize,
}

/// Writes `out/crds/widget-NNN.yaml` and `out/crs/NN/part-NNNNN.yaml`.
pub fn generate(out: &Path, n_crds: usize, n_crs: usize, per_file: usize) -> io::Result<Generated> {
    let n_crds = n_crds.max(1);
    let per_file = per_file.max(1);
    let mut stats = Generated::default();
    let crd_dir = out.join("crds");
    std::fs::create_dir_all(&crd_dir)?;
    for i in 0..n_crds {
        let text = crd(i);
        stats.bytes += text.len() as u64;
        std::fs::write(crd_dir.join(format!("widget-{i:03}.yaml")), text)?;
        stats.crd_files += 1;
    }
    let mut n = 0;
    let mut file_index = 0;
    while n < n_crs {
        let dir = out.join("crs").join(format!("{:02}", file_index / 1000));
        if file_index % 1000 == 0 {
            std::fs::create_dir_all(&dir)?;
        }
        let mut text = String::new();
        for _ in 0..per_file.min(n_crs - n) {
            if !text.is_empty() {
                text.push_str("---\n");
            }
            stats.invalid += usize::from(resource(&mut text, n, n_crds));
            n += 1;
        }
        stats.bytes += text.len() as u64;
        std::fs::write(dir.join(format!("part-{file_index:05}.yaml")), text)?;
        stats.cr_files += 1;
        file_index += 1;
    }
    Ok(stats)
}

/// One CRD; `i` varies the kind and adds `i % 8` extra optional fields.
pub fn crd(i: usize) -> String {
    let mut extra = String::new();
    for j in 0..i % 8 {
        let _ = write!(
            extra,
            "
              extra{j}:
                type: string
                maxLength: 128
                x-kubernetes-validations:
                - rule: \"!self.startsWith('-')\"
                  message: must not start with a dash"
        );
    }
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widget{i}s.{GROUP}
spec:
  group: {GROUP}
  names:
    kind: Widget{i}
    listKind: Widget{i}List
    plural: widget{i}s
    singular: widget{i}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    subresources:
      status: {{}}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image, replicas]
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.replicas
              message: minReplicas must not exceed replicas
            - rule: "!has(self.maxSurge) || self.maxSurge <= self.replicas"
              messageExpression: "'maxSurge must not exceed replicas'"
            properties:
              image:
                type: string
                maxLength: 256
                pattern: '^[a-z0-9][a-z0-9./:_-]*$'
              replicas:
                type: integer
                format: int32
                minimum: 0
                maximum: 1000
              minReplicas:
                type: integer
                format: int32
                minimum: 0
                default: 0
              maxSurge:
                type: integer
                format: int32
              mode:
                type: string
                enum: [Auto, Manual, Disabled]
                default: Auto
              schedule:
                type: string
                maxLength: 64
              timeout:
                type: string
                format: duration
              ports:
                type: array
                maxItems: 64
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                x-kubernetes-validations:
                - rule: self.all(p, p.port > 0)
                items:
                  type: object
                  required: [name, port]
                  x-kubernetes-validations:
                  - rule: self.port != 22 || self.protocol == 'TCP'
                    message: ssh must use TCP
                  properties:
                    name:
                      type: string
                      maxLength: 63
                    port:
                      type: integer
                      minimum: 1
                      maximum: 65535
                    protocol:
                      type: string
                      enum: [TCP, UDP, SCTP]
                      default: TCP
              env:
                type: array
                maxItems: 100
                items:
                  type: object
                  required: [name]
                  properties:
                    name:
                      type: string
                      maxLength: 128
                    value:
                      type: string
                      maxLength: 1024
              selector:
                type: object
                maxProperties: 32
                additionalProperties:
                  type: string
                  maxLength: 63
              resources:
                type: object
                properties:
                  cpu:
                    anyOf:
                    - type: integer
                    - type: string
                    x-kubernetes-int-or-string: true
                  memory:
                    anyOf:
                    - type: integer
                    - type: string
                    x-kubernetes-int-or-string: true
              template:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                x-kubernetes-embedded-resource: true{extra}
          status:
            type: object
            properties:
              replicas:
                type: integer
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status]
                  properties:
                    type:
                      type: string
                    status:
                      type: string
                      enum: ["True", "False", Unknown]
                    lastTransitionTime:
                      type: string
                      format: date-time
"#
    )
}

/// Appends resource `n` (of kind `Widget{n % n_crds}`); returns whether it is invalid.
pub fn resource(out: &mut String, n: usize, n_crds: usize) -> bool {
    let kind = n % n_crds;
    // A small deterministic mix (no RNG dependency).
    let h = n.wrapping_mul(2_654_435_761) % 1_000_003;
    let invalid = n % 100 == 99;
    let replicas = if invalid && n % 200 == 99 {
        5000
    } else {
        h % 50 + 2
    };
    let min_replicas = if invalid && n % 200 != 99 {
        replicas + 1
    } else {
        replicas / 2
    };
    let _ = write!(
        out,
        r#"apiVersion: {GROUP}/v1
kind: Widget{kind}
metadata:
  name: widget-{n}
  namespace: team-{ns}
  labels:
    app.kubernetes.io/name: widget
    app.kubernetes.io/instance: widget-{n}
    tier: t{tier}
  annotations:
    example.com/owner: "team-{ns}@example.com"
spec:
  image: registry.example.com/widgets/app:1.{tag}.0
  replicas: {replicas}
  minReplicas: {min_replicas}
  mode: {mode}
  timeout: {timeout}s
  ports:
  - name: http
    port: {port}
  - name: metrics
    port: 9090
    protocol: TCP
  env:
  - name: LOG_LEVEL
    value: info
  - name: WORKERS
    value: "{workers}"
  selector:
    app: widget
    shard: "{shard}"
  resources:
    cpu: {cpu}m
    memory: {mem}Mi{extra}
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: widget-{n}-config
    data:
      key: value
"#,
        ns = n % 7,
        tier = n % 3,
        tag = h % 40,
        mode = ["Auto", "Manual"][n % 2],
        timeout = h % 300 + 1,
        port = 8000 + h % 1000,
        workers = h % 16 + 1,
        shard = h % 10,
        cpu = (h % 8 + 1) * 250,
        mem = (h % 16 + 1) * 64,
        extra = if !kind.is_multiple_of(8) {
            format!("\n  extra0: value-{n}")
        } else {
            String::new()
        },
    );
    invalid
}
