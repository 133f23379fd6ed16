// @vitest-environment jsdom
// The YAML section against a stubbed fetch and clipboard.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { jsonResponse, stubFetch } from "../test/fetch";
import { COPIED_FOR_MS, ObjectYaml, copyToClipboard } from "./ObjectYaml";

const TARGET = { kind: "ingresses", namespace: "team-000", name: "web" } as const;
const YAML = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  annotations:\n    nginx.ingress.kubernetes.io/configuration-snippet: <redacted>\n  name: web\n";

let calls: string[];

beforeEach(() => {
  calls = stubFetch(() => new Response(YAML, { status: 200, headers: { "Content-Type": "text/yaml; charset=utf-8" } }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function stubClipboard(writeText: (text: string) => Promise<void>) {
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
}

describe("ObjectYaml", () => {
  it("reads the YAML only on demand and shows it monospaced and scrollable", async () => {
    render(<ObjectYaml target={TARGET} />);
    expect(calls).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Show YAML" }));
    const pre = await screen.findByLabelText("YAML of team-000/web");
    expect(calls).toEqual(["/api/objects/ingresses/team-000/web/yaml"]);
    expect(pre.tagName).toBe("PRE");
    expect(pre.className).toContain("mono");
    expect(pre.className).toContain("yaml-text");
    expect(pre.textContent).toBe(YAML);
    fireEvent.click(screen.getByRole("button", { name: "Hide YAML" }));
    expect(screen.queryByLabelText("YAML of team-000/web")).toBeNull();
  });

  it("copies with the Clipboard API and says Copied for a moment", async () => {
    const written: string[] = [];
    stubClipboard(async (text) => void written.push(text));
    render(<ObjectYaml target={TARGET} />);
    fireEvent.click(screen.getByRole("button", { name: "Show YAML" }));
    await screen.findByLabelText("YAML of team-000/web");
    vi.useFakeTimers();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Copy" })));
    expect(written).toEqual([YAML]);
    expect(screen.getByRole("button", { name: "Copied" })).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(COPIED_FOR_MS));
    expect(screen.getByRole("button", { name: "Copy" })).toBeTruthy();
  });

  it("falls back to a selection and execCommand when the Clipboard API refuses", async () => {
    stubClipboard(async () => Promise.reject(new DOMException("not allowed", "NotAllowedError")));
    const copied: string[] = [];
    const execCommand = vi.fn((command: string) => {
      const area = document.activeElement as HTMLTextAreaElement | null;
      copied.push(`${command}:${area?.value ?? ""}`);
      return true;
    });
    Object.defineProperty(document, "execCommand", { value: execCommand, configurable: true });
    expect(await copyToClipboard("kind: Ingress\n")).toBe(true);
    expect(copied).toEqual(["copy:kind: Ingress\n"]);
    expect(document.querySelector("textarea")).toBeNull();
    execCommand.mockReturnValue(false);
    expect(await copyToClipboard("x")).toBe(false);
  });

  it("shows the server's message when the object is gone", async () => {
    stubFetch(() => jsonResponse({ error: { code: "not_found", message: "Ingress team-000/web was not found." } }, 404));
    render(<ObjectYaml target={TARGET} />);
    fireEvent.click(screen.getByRole("button", { name: "Show YAML" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Ingress team-000/web was not found.");
  });

  it("forgets the YAML when another object is selected", async () => {
    const { rerender } = render(<ObjectYaml target={TARGET} />);
    fireEvent.click(screen.getByRole("button", { name: "Show YAML" }));
    await screen.findByLabelText("YAML of team-000/web");
    rerender(<ObjectYaml target={{ ...TARGET, name: "other" }} />);
    expect(screen.queryByText(/kind: Ingress/)).toBeNull();
    expect(screen.getByRole("button", { name: "Show YAML" })).toBeTruthy();
  });
});
