// @vitest-environment jsdom
// The real table, wired as App wires it (filterAndSort, nextSort, the selection), rendered in
// jsdom. jsdom has no layout, so the one boundary mocked is the size the browser would give the
// scrolling element (what @tanstack/react-virtual reads); everything else is the app's code.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { useMemo, useState } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { IngressRecord } from "../api/wire";
import { compileFilter, defaultSort, emptyFilters, filterAndSort, nextSort, type SortOrder } from "../state/filters";
import { backend, certificate, condition, httpRoute, ingress } from "../test/fixtures";
import { IngressTable, ROW_HEIGHT } from "./IngressTable";

const VIEWPORT = { width: 1200, height: 680 };
const NOW = Date.parse("2026-01-02T00:00:00Z");
const NO_CHANGES = new Map();

/** The table and the state App keeps around it. */
function Dashboard({ records }: { records: readonly IngressRecord[] }) {
  const [sort, setSort] = useState<SortOrder>(defaultSort);
  const [selected, setSelected] = useState<IngressRecord | null>(null);
  const rows = useMemo(() => filterAndSort(records, compileFilter(emptyFilters), sort), [records, sort]);
  return (
    <IngressTable
      rows={rows}
      changes={NO_CHANGES}
      sort={sort}
      onSort={(key) => setSort((current) => nextSort(current, key))}
      selectedUid={selected?.uid ?? null}
      onSelect={setSelected}
      now={NOW}
      warningDays={14}
    />
  );
}

const sizes = ["clientHeight", "clientWidth"] as const;
const originals = sizes.map((name) => Object.getOwnPropertyDescriptor(HTMLElement.prototype, name));

beforeAll(() => {
  // The scrolling table gets the size a browser would lay it out at; other elements keep jsdom's 0.
  for (const name of sizes) {
    Object.defineProperty(HTMLElement.prototype, name, {
      configurable: true,
      get(this: HTMLElement) {
        if (!this.classList.contains("table")) return 0;
        return name === "clientHeight" ? VIEWPORT.height : VIEWPORT.width;
      },
    });
  }
});

afterAll(() => {
  sizes.forEach((name, index) => {
    const original = originals[index];
    if (original) Object.defineProperty(HTMLElement.prototype, name, original);
    else delete (HTMLElement.prototype as unknown as Record<string, unknown>)[name];
  });
});

afterEach(cleanup);

/** The body rows in the DOM, in document order. */
function bodyRows(): HTMLElement[] {
  return screen.getAllByRole("row").filter((row) => row.classList.contains("body-row"));
}

/** The rows in the order they are shown (the virtualiser places them by transform, not order). */
function shownKeys(): string[] {
  return bodyRows()
    .sort((a, b) => Number(a.getAttribute("aria-rowindex")) - Number(b.getAttribute("aria-rowindex")))
    .map((row) => row.dataset.key ?? "");
}

function columnHeader(name: string): HTMLElement {
  const header = screen.getAllByRole("columnheader").find((cell) => cell.textContent?.startsWith(name));
  if (!header) throw new Error(`no column ${name}`);
  return header;
}

const threeRecords = [
  ingress({ name: "web", namespace: "shop" }),
  ingress({ name: "api", namespace: "payments" }),
  ingress({ name: "docs", namespace: "wiki", tls: [{ hosts: ["docs.example.com"], secretName: "docs-tls" }] }),
];

describe("IngressTable", () => {
  it("renders a row per record with its name, namespace and host", () => {
    render(<Dashboard records={threeRecords} />);
    const table = screen.getByRole("table", { name: "Ingresses" });
    expect(table.getAttribute("aria-rowcount")).toBe("4");
    expect(shownKeys()).toEqual(["payments/api", "wiki/docs", "shop/web"]);

    const row = bodyRows().find((r) => r.dataset.key === "shop/web");
    if (!row) throw new Error("no row for shop/web");
    const cells = within(row).getAllByRole("cell");
    expect(cells[0]?.textContent).toBe("web");
    expect(cells[1]?.textContent).toBe("shop");
    expect(within(row).getByRole("link", { name: "web.example.com" }).getAttribute("href")).toBe("http://web.example.com/");
    const docs = bodyRows().find((r) => r.dataset.key === "wiki/docs");
    expect(docs && within(docs).getByText("TLS")).toBeTruthy();
  });

  it("sorts by the clicked column, and the other way round on a second click", () => {
    render(<Dashboard records={threeRecords} />);
    expect(columnHeader("Name").getAttribute("aria-sort")).toBe("ascending");

    fireEvent.click(within(columnHeader("Namespace")).getByRole("button"));
    expect(columnHeader("Namespace").getAttribute("aria-sort")).toBe("ascending");
    expect(columnHeader("Name").getAttribute("aria-sort")).toBe("none");
    expect(shownKeys()).toEqual(["payments/api", "shop/web", "wiki/docs"]);

    fireEvent.click(within(columnHeader("Namespace")).getByRole("button"));
    expect(columnHeader("Namespace").getAttribute("aria-sort")).toBe("descending");
    expect(shownKeys()).toEqual(["wiki/docs", "shop/web", "payments/api"]);
  });

  it("selects the clicked row, and the keys move the selection", () => {
    render(<Dashboard records={threeRecords} />);
    const selected = () => bodyRows().filter((row) => row.getAttribute("aria-current") === "true").map((row) => row.dataset.key);
    expect(selected()).toEqual([]);

    const docs = bodyRows().find((r) => r.dataset.key === "wiki/docs");
    if (!docs) throw new Error("no row for wiki/docs");
    fireEvent.click(within(docs).getByText("docs"));
    expect(selected()).toEqual(["wiki/docs"]);

    const table = screen.getByRole("table", { name: "Ingresses" });
    fireEvent.keyDown(table, { key: "ArrowDown" });
    expect(selected()).toEqual(["shop/web"]);
    fireEvent.keyDown(table, { key: "ArrowDown" });
    expect(selected()).toEqual(["shop/web"]);
    fireEvent.keyDown(table, { key: "Home" });
    expect(selected()).toEqual(["payments/api"]);
    fireEvent.keyDown(table, { key: "k" });
    expect(selected()).toEqual(["payments/api"]);
  });

  it("renders only a window of 10,000 rows, and scrolling moves the window", () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ingress({ name: `app-${String(i).padStart(5, "0")}`, namespace: "team" }));
    render(<Dashboard records={records} />);
    const table = screen.getByRole("table", { name: "Ingresses" });
    expect(table.getAttribute("aria-rowcount")).toBe("10001");

    // About a screenful (680 px of 34 px rows) plus the overscan, never the 10,000.
    const visible = Math.ceil(VIEWPORT.height / ROW_HEIGHT);
    expect(bodyRows().length).toBeGreaterThanOrEqual(visible);
    expect(bodyRows().length).toBeLessThan(visible + 30);
    expect(shownKeys()[0]).toBe("team/app-00000");
    // The spacer still makes the whole list scrollable.
    const spacer = table.querySelector<HTMLElement>(".table-rows");
    expect(spacer?.style.height).toBe(`${10_000 * ROW_HEIGHT}px`);

    act(() => {
      table.scrollTop = 5_000 * ROW_HEIGHT;
      fireEvent.scroll(table);
    });
    const keys = shownKeys();
    expect(keys).toContain("team/app-05000");
    expect(keys).not.toContain("team/app-00000");
    expect(bodyRows().length).toBeLessThan(visible + 30);
  });

  it("shows the kind, an HTTPRoute's parent gateways and conditions, and problem badges in words", () => {
    const records = [
      ingress({
        name: "app-00001",
        namespace: "team-000",
        backends: [backend({ service: "app-00001", namespace: "team-000", state: "no_ready_endpoints", readyEndpoints: 0, totalEndpoints: 3 })],
      }),
      ingress({
        name: "app-00000",
        namespace: "team-000",
        tls: [{ hosts: ["app-00000.team-000.example.com"], secretName: "app-00000-tls" }],
        certificates: [
          certificate({ secretName: "app-00000-tls", notAfter: new Date(NOW + 5 * 86_400_000).toISOString(), missingHosts: ["*.team-000.example.com"] }),
        ],
      }),
      httpRoute({
        name: "checkout",
        namespace: "team-000",
        conditions: [condition("Accepted", "True", "Accepted"), condition("ResolvedRefs", "False", "BackendNotFound", "checkout-v2 not found")],
      }),
      ingress({ name: "checkout", namespace: "team-000" }),
    ];
    render(<Dashboard records={records} />);
    const rowOf = (key: string) => {
      const row = bodyRows().find((r) => r.dataset.key === key);
      if (!row) throw new Error(`no row ${key}`);
      return row;
    };
    const cell = (row: HTMLElement, name: string) => row.querySelector<HTMLElement>(`.cell-${name}`);

    // An ingress and an HTTPRoute of the same name are two rows.
    const route = rowOf("httproute/team-000/checkout");
    expect(cell(route, "kind")?.textContent).toBe("HTTPRoute");
    expect(cell(rowOf("team-000/checkout"), "kind")?.textContent).toBe("Ingress");
    expect(cell(route, "class")?.textContent).toBe("gateway-system/public");
    const routeBadge = within(route).getByText("ResolvedRefs: BackendNotFound");
    expect(routeBadge.getAttribute("title")).toContain("checkout-v2 not found");

    // The badge's words name the service, for the tooltip and for screen readers.
    const backendBadge = route.ownerDocument.querySelector<HTMLElement>('[data-key="team-000/app-00001"] [data-badge="backend"]');
    expect(backendBadge?.textContent).toBe("No ready endpoints: 1 backend not ready: app-00001:80 (no ready endpoints, 0/3 endpoints ready)");
    expect(backendBadge?.getAttribute("title")).toContain("app-00001:80");

    const tls = rowOf("team-000/app-00000");
    expect([...tls.querySelectorAll("[data-badge]")].map((b) => b.firstChild?.textContent)).toEqual(["Cert expires in 5d", "Host not covered"]);
    expect(cell(tls, "status")?.getAttribute("title")).toContain("*.team-000.example.com not covered by the certificate in app-00000-tls");
    expect(cell(rowOf("team-000/checkout"), "status")?.textContent).toBe("—");
  });
});
