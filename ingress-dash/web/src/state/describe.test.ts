import { describe, expect, it } from "vitest";
import { ingress } from "../test/fixtures";
import { describeBackend, formatAge, routesSummary } from "./describe";

describe("describe", () => {
  const created = "2026-01-01T00:00:00Z";
  const at = (seconds: number) => Date.parse(created) + seconds * 1000;

  it("formats ages as kubectl does", () => {
    expect(formatAge(created, at(45))).toBe("45s");
    expect(formatAge(created, at(5 * 60 + 12))).toBe("5m12s");
    expect(formatAge(created, at(37 * 60))).toBe("37m");
    expect(formatAge(created, at(4 * 3600 + 12 * 60))).toBe("4h12m");
    expect(formatAge(created, at(19 * 3600))).toBe("19h");
    expect(formatAge(created, at(5 * 60))).toBe("5m");
    expect(formatAge(created, at(4 * 3600))).toBe("4h");
    expect(formatAge(created, at(3 * 86400))).toBe("3d");
    expect(formatAge(created, at(3 * 86400 + 4 * 3600))).toBe("3d4h");
    expect(formatAge(created, at(210 * 86400))).toBe("210d");
    expect(formatAge(created, at(800 * 86400))).toBe("2y70d");
    expect(formatAge("not a date", at(1))).toBe("?");
  });

  it("describes service and resource backends", () => {
    expect(describeBackend({ service: { name: "web", port: "http" } })).toBe("web:http");
    expect(describeBackend({ resource: { apiGroup: "k8s.example.com", kind: "StorageBucket", name: "static" } })).toBe(
      "k8s.example.com/StorageBucket/static",
    );
  });

  it("summarises paths and the default backend", () => {
    const record = ingress({
      name: "web",
      rules: [
        {
          host: "a.example.com",
          paths: [
            { path: "/api", pathType: "Prefix", backend: { service: { name: "api", port: 80 } } },
            { path: null, pathType: "ImplementationSpecific", backend: { service: { name: "web", port: "http" } } },
          ],
        },
      ],
      defaultBackend: { service: { name: "fallback", port: 80 } },
    });
    expect(routesSummary(record)).toBe("/api → api:80, / → web:http, * → fallback:80");
  });
});
