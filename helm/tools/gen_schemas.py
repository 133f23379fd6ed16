#!/usr/bin/env python3
"""Writes values.schema.json for the three service charts. Their values share one shape; this
keeps the three schemas identical where the charts are, and states the few differences once.
Run after changing a chart's values: python3 helm/tools/gen_schemas.py"""
import copy
import json
from pathlib import Path

CHARTS = Path(__file__).resolve().parent.parent / "search-platform" / "charts"

string = {"type": "string"}
obj = {"type": "object"}
string_map = {"type": "object", "additionalProperties": {"type": "string"}}
port = {"type": "integer", "minimum": 1, "maximum": 65535}
path = {"type": "string", "pattern": "^/"}

# global.frontDoor: admin-console and ingress-dash behind authproxy (docs/access-control.md).
front_door = {
    "type": "object",
    "additionalProperties": False,
    "description": "Put admin-console and ingress-dash behind authproxy's forward_auth.",
    "properties": {
        "enabled": {"type": "boolean"},
        "controller": {"enum": ["nginx", "traefik"], "description": "ingress-nginx or Traefik."},
        "signInUrl": {"type": "string", "pattern": "^(https?://[^/?#]+/?)?$", "description": "authproxy's public URL (auth-signin)."},
        "cookieDomain": {"type": "string", "description": "authproxy's session.cookie_domain, e.g. .example.com."},
        "trustedProxies": {
            "type": "array",
            # An IPv4/IPv6 address or CIDR (the services check the values themselves; this
            # catches a host name or a stray blank at install time).
            "items": {"type": "string", "pattern": "^[0-9A-Fa-f.:]+(/[0-9]{1,3})?$"},
            "description": "Who may set the identity headers: the ingress controller's pod CIDR(s). Required with enabled; empty: admin-console and ingress-dash trust loopback only (kubectl port-forward).",
        },
        "authproxyName": string,
        "authproxyPort": port,
        "authproxyUrl": {"type": "string", "pattern": "^https?://"},
    },
    "if": {"properties": {"enabled": {"const": True}}, "required": ["enabled"]},
    "then": {"required": ["trustedProxies"], "properties": {"trustedProxies": {"minItems": 1}}},
}
global_values = {"type": "object", "properties": {"frontDoor": front_door}}

common = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "enabled": {"type": "boolean", "description": "Install this service (umbrella chart)."},
        "global": global_values,
        "image": {
            "type": "object",
            "additionalProperties": False,
            "required": ["repository"],
            "properties": {
                "repository": {"type": "string", "minLength": 1},
                "tag": string,
                "pullPolicy": {"enum": ["Always", "IfNotPresent", "Never"]},
            },
        },
        "imagePullSecrets": {"type": "array", "items": obj},
        "nameOverride": string,
        "fullnameOverride": string,
        "replicaCount": {"type": "integer", "minimum": 0},
        "containerPort": port,
        "probes": {
            "type": "object",
            "additionalProperties": False,
            "required": ["livenessPath", "readinessPath"],
            "properties": {"livenessPath": path, "readinessPath": path},
        },
        "config": {
            "type": "object",
            "description": "The service's YAML configuration file; see docs/<service>.md.",
        },
        "secret": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "create": {"type": "boolean"},
                "existingSecret": string,
                "env": {
                    "type": "object",
                    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                    "additionalProperties": {"type": "string"},
                },
            },
        },
        "extraEnv": {"type": "array", "items": obj},
        "extraVolumes": {"type": "array", "items": obj},
        "extraVolumeMounts": {"type": "array", "items": obj},
        "service": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "type": {"enum": ["ClusterIP", "NodePort", "LoadBalancer"]},
                "port": port,
            },
        },
        "serviceAccount": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "create": {"type": "boolean"},
                "name": string,
                "annotations": string_map,
                "automountToken": {"type": "boolean"},
            },
        },
        "podAnnotations": string_map,
        "podSecurityContext": obj,
        "securityContext": obj,
        "resources": obj,
        "ingress": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "className": string,
                "annotations": string_map,
                "hosts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["host", "paths"],
                        "properties": {
                            "host": string,
                            "paths": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "required": ["path", "pathType"],
                                    "properties": {
                                        "path": path,
                                        "pathType": {"enum": ["Prefix", "Exact", "ImplementationSpecific"]},
                                    },
                                },
                            },
                        },
                    },
                },
                "tls": {"type": "array", "items": obj},
            },
        },
        "networkPolicy": {
            "type": "object",
            "additionalProperties": False,
            "description": "An optional NetworkPolicy: ingress from the ingress controller and Prometheus on the http port, egress to DNS and the egress groups.",
            "properties": {
                "enabled": {"type": "boolean"},
                "ingressController": {"type": ["object", "null"], "description": "NetworkPolicyPeer of the ingress controller's pods."},
                "prometheus": {"type": ["object", "null"], "description": "NetworkPolicyPeer of Prometheus."},
                "extraIngress": {"type": "array", "items": obj},
                "dns": {"type": "boolean"},
                "egress": {
                    "type": "object",
                    "description": "Named egress groups: ports, and the peers they go to (empty: any address).",
                    "additionalProperties": {
                        "type": ["object", "null"],
                        "additionalProperties": False,
                        "properties": {
                            "ports": {"type": "array", "items": obj},
                            "to": {"type": "array", "items": obj},
                        },
                    },
                },
                "extraEgress": {"type": "array", "items": obj},
            },
        },
        "serviceMonitor": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "interval": string,
                "scrapeTimeout": string,
                "labels": string_map,
            },
        },
        "podDisruptionBudget": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "minAvailable": {"type": ["integer", "string"]},
                "maxUnavailable": {"type": ["integer", "string", "null"]},
            },
        },
        "nodeSelector": string_map,
        "tolerations": {"type": "array", "items": obj},
        "affinity": obj,
    },
}


def write(chart: str, schema: dict) -> None:
    schema["title"] = f"{chart} chart values"
    (CHARTS / chart / "values.schema.json").write_text(json.dumps(schema, indent=2) + "\n")


admin_console = copy.deepcopy(common)
admin_console["properties"]["hostCheck"] = {
    "type": "object",
    "additionalProperties": False,
    "description": "Defaults config.server.allowed_hosts to the ingress hosts (DNS-rebinding protection).",
    "properties": {
        "enabled": {"type": "boolean"},
        "extraHosts": {"type": "array", "items": {"type": "string", "minLength": 1}},
    },
}
write("admin-console", admin_console)

authproxy = copy.deepcopy(common)
# Several replicas share sessions and cached credentials only through Redis.
authproxy["if"] = {"properties": {"replicaCount": {"minimum": 2}}, "required": ["replicaCount"]}
authproxy["then"] = {
    "properties": {
        "config": {
            "required": ["cache"],
            "properties": {"cache": {"required": ["backend"], "properties": {"backend": {"const": "redis"}}}},
        }
    }
}
write("authproxy", authproxy)

ingress = copy.deepcopy(common)
ingress["properties"]["rbac"] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"create": {"type": "boolean"}},
}
ingress["properties"]["watchNamespaces"] = {
    "type": "array",
    "items": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63},
    "uniqueItems": True,
}
write("ingress-dash", ingress)

# The umbrella chart: which services, and the global values they share.
UMBRELLA = CHARTS.parent / "values.schema.json"
UMBRELLA.write_text(json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "search-platform umbrella values",
    "type": "object",
    "properties": {
        "admin-console": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "authproxy": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "ingress-dash": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "global": global_values,
    },
}, indent=2) + "\n")
