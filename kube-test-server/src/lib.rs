//! Placeholder: the in-memory Kubernetes API server arrives with the ingress-dash backend issue.
