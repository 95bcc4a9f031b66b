//! Resolution of plain YAML scalars the way Kubernetes reads manifests
//! (go-yaml v2 rules through sigs.k8s.io/yaml). (Being written: see the loader task.)
