// @vitest-environment jsdom
// The annotation explainer against a stubbed fetch (the server's answer in its wire shape).
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AnnotationExplanation, IngressAnnotations } from "../api/wire";
import { jsonResponse, stubFetch } from "../test/fetch";
import { AnnotationExplainer } from "./AnnotationExplainer";

function explained(overrides: Partial<AnnotationExplanation> & { key: string }): AnnotationExplanation {
  return {
    value: "",
    controller: "ingress-nginx",
    does: null,
    support: null,
    gatewayApi: null,
    validity: "not_checked",
    expected: null,
    source: null,
    warnings: [],
    ...overrides,
  };
}

const ANSWER: IngressAnnotations = {
  namespace: "team-a",
  name: "web",
  ingressClassName: "nginx",
  controller: "k8s.io/ingress-nginx",
  controllerName: "ingress-nginx",
  controllerNote: null,
  catalogueVersion: "ingress-nginx@2026.11.1",
  annotations: [
    explained({
      key: "nginx.ingress.kubernetes.io/rewrite-target",
      value: "/",
      does: "Rewrites the request path sent to the backend.",
      support: "gateway_api",
      gatewayApi: "HTTPRoute URLRewrite filter",
      validity: "not_checked",
      source: "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/#rewrite",
    }),
    explained({
      key: "nginx.ingress.kubernetes.io/ssl-redirect",
      value: "yes",
      support: "gateway_api",
      validity: "invalid",
      expected: '"true" or "false"',
      warnings: [{ code: "invalid_value", message: 'Invalid value: expected "true" or "false".' }],
    }),
    explained({
      key: "nginx.ingress.kubernetes.io/server-snippet",
      value: "<redacted>",
      support: "no_equivalent",
      warnings: [{ code: "snippet", message: "Raw proxy configuration." }],
    }),
    explained({ key: "cert-manager.io/cluster-issuer", value: "letsencrypt", controller: null }),
  ],
};

let calls: string[];

beforeEach(() => {
  calls = stubFetch((url) => {
    if (url.includes("/gone/")) {
      return jsonResponse({ error: { code: "not_found", message: "Ingress team-a/gone was not found." } }, 404);
    }
    return jsonResponse(ANSWER);
  });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("AnnotationExplainer", () => {
  it("explains each annotation for the class's controller, with its classification, validity and warnings", async () => {
    render(<AnnotationExplainer namespace="team-a" name="web" />);
    const items = await screen.findAllByTestId("explained-annotation");
    expect(calls).toEqual(["/api/objects/ingresses/team-a/web/annotations"]);
    expect(screen.getByTestId("explainer-controller").textContent).toContain("Controller: ingress-nginx (class nginx)");
    expect(items.map((item) => item.dataset.support)).toEqual(["gateway_api", "gateway_api", "no_equivalent", "none"]);
    const [rewrite, redirect, snippet, issuer] = items as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    expect(within(rewrite).getByText("Gateway API field")).toBeTruthy();
    expect(within(rewrite).getByRole("link", { name: "Documentation" }).getAttribute("href")).toContain("#rewrite");
    expect(redirect.dataset.validity).toBe("invalid");
    expect(within(redirect).getByText("invalid value")).toBeTruthy();
    expect(redirect.textContent).toContain('Expected "true" or "false".');
    expect(within(snippet).getByRole("note").className).toContain("warning-snippet");
    expect(snippet.textContent).toContain("<redacted>");
    expect(within(issuer).queryByRole("note")).toBeNull();
  });

  it("says why it cannot explain, in the server's words", async () => {
    render(<AnnotationExplainer namespace="team-a" name="gone" />);
    expect((await screen.findByRole("alert")).textContent).toBe("Ingress team-a/gone was not found.");
  });

  it("asks nothing for a deleted ingress", () => {
    render(<AnnotationExplainer namespace="team-a" name="web" deleted />);
    expect(calls).toEqual([]);
    expect(screen.getByTestId("annotation-explainer").textContent).toContain("deleted");
  });
});
