// @vitest-environment jsdom
// The toolbar's kind, backend and expiry filters, and the notice banners, driven as a user does.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { emptyFilters, type Filters } from "../state/filters";
import { DISMISSED_NOTICES_KEY, NoticeBanners } from "./Banners";
import { Toolbar } from "./Toolbar";

afterEach(() => {
  cleanup();
  localStorage.clear();
});

function Harness({ seen, expiryWarningDays = 21 }: { seen: Filters[]; expiryWarningDays?: number }) {
  const [filters, setFilters] = useState<Filters>(emptyFilters);
  return (
    <Toolbar
      filters={filters}
      onChange={(next) => {
        seen.push(next);
        setFilters(next);
      }}
      namespaceOptions={[]}
      classes={[]}
      labelError={null}
      expiryWarningDays={expiryWarningDays}
      shown={3}
      total={3}
      routes={1}
    />
  );
}

describe("Toolbar", () => {
  it("sets the kind and backend filters", () => {
    const seen: Filters[] = [];
    render(<Harness seen={seen} />);
    fireEvent.change(screen.getByTestId("kind-select"), { target: { value: "HTTPRoute" } });
    fireEvent.change(screen.getByTestId("backend-select"), { target: { value: "no_ready_endpoints" } });
    expect(seen.at(-1)).toMatchObject({ kind: "HTTPRoute", backends: "no_ready_endpoints" });
    expect(screen.getByTestId("row-count").textContent).toBe("2 ingresses · 1 HTTPRoute");
    fireEvent.click(screen.getByRole("button", { name: "Clear filters" }));
    expect(seen.at(-1)).toEqual(emptyFilters);
  });

  it("the expiry filter starts at the server's warning days, and N is editable", () => {
    const seen: Filters[] = [];
    render(<Harness seen={seen} expiryWarningDays={21} />);
    const days = screen.getByTestId("expiry-days") as HTMLInputElement;
    expect(days.value).toBe("21");
    fireEvent.click(screen.getByTestId("expiry-toggle"));
    expect(seen.at(-1)?.expiresWithinDays).toBe(21);

    fireEvent.change(days, { target: { value: "7" } });
    expect(seen.at(-1)?.expiresWithinDays).toBe(7);
    // An unfinished or out-of-range number keeps the last valid one and says so.
    const before = seen.length;
    fireEvent.change(days, { target: { value: "" } });
    fireEvent.change(days, { target: { value: "99999" } });
    expect(seen.length).toBe(before);
    expect(days.getAttribute("aria-invalid")).toBe("true");

    fireEvent.click(screen.getByTestId("expiry-toggle"));
    expect(seen.at(-1)?.expiresWithinDays).toBeNull();
  });
});

describe("NoticeBanners", () => {
  const notice = { code: "gateway_api_not_installed", message: "Gateway API is not installed: HTTPRoutes are not shown." };

  it("shows a notice until it is dismissed, and remembers the dismissal", () => {
    const { unmount } = render(<NoticeBanners notices={[notice]} />);
    expect(screen.getByTestId("notice").textContent).toContain("Gateway API is not installed");
    fireEvent.click(screen.getByRole("button", { name: /Dismiss/ }));
    expect(screen.queryByTestId("notice")).toBeNull();
    expect(JSON.parse(localStorage.getItem(DISMISSED_NOTICES_KEY) ?? "[]")).toEqual([notice.code]);
    unmount();

    // A new page load does not show it again; another notice still shows.
    render(<NoticeBanners notices={[notice, { code: "other", message: "Something else." }]} />);
    expect(screen.getAllByTestId("notice").map((n) => n.dataset.code)).toEqual(["other"]);
  });
});
