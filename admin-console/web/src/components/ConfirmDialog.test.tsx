// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ConfirmDialog } from "./ConfirmDialog";
import { JsonEditor } from "./JsonEditor";

afterEach(cleanup);

describe("the confirmation dialog", () => {
  it("confirms only with the exact typed text, and keeps the call's error inside", async () => {
    const onConfirm = vi.fn().mockRejectedValueOnce(new Error("no such index [logs]")).mockResolvedValue(undefined);
    render(
      <ConfirmDialog title="Delete logs?" typed="logs" confirmLabel="Delete" danger onConfirm={onConfirm} onCancel={() => {}}>
        gone for good
      </ConfirmDialog>,
    );
    const button = screen.getByTestId("confirm-button") as HTMLButtonElement;
    const input = screen.getByTestId("confirm-typed");
    expect(document.activeElement).toBe(input);
    expect(button.disabled).toBe(true);
    fireEvent.change(input, { target: { value: "Logs" } });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(onConfirm).not.toHaveBeenCalled();
    fireEvent.change(input, { target: { value: "logs" } });
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    expect((await screen.findByTestId("confirm-error")).textContent).toBe("no such index [logs]");
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it("without typed text confirms at once; Escape cancels", () => {
    const onConfirm = vi.fn();
    const onCancel = vi.fn();
    render(<ConfirmDialog title="Close logs?" confirmLabel="Close" onConfirm={onConfirm} onCancel={onCancel} />);
    expect(screen.queryByTestId("confirm-typed")).toBeNull();
    fireEvent.keyDown(window, { key: "Escape" });
    expect(onCancel).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByTestId("confirm-button"));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });
});

describe("the JSON editor", () => {
  it("shows the parse problem under the field and marks it invalid", () => {
    const view = render(<JsonEditor label="Filter" value='{"a": }' onChange={() => {}} testId="f" />);
    expect(screen.getByTestId("f").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByTestId("f-error").textContent).toMatch(/^Filter is not valid JSON/);
    view.rerender(<JsonEditor label="Filter" value='{"a": 1}' onChange={() => {}} testId="f" />);
    expect(screen.queryByTestId("f-error")).toBeNull();
    expect(screen.getByTestId("f").getAttribute("aria-invalid")).toBe("false");
  });
});

describe("the confirmation dialog on a production cluster", () => {
  it("asks for a reason and runs the action with it", async () => {
    const { ProductionContext, pendingReasonHeaders } = await import("../lib/changeReason");
    const seen: Record<string, string>[] = [];
    const onConfirm = vi.fn(async () => {
      seen.push(pendingReasonHeaders("POST"));
    });
    render(
      <ProductionContext.Provider value={true}>
        <ConfirmDialog title="Close logs?" confirmLabel="Close" onConfirm={onConfirm} onCancel={() => {}} />
      </ProductionContext.Provider>,
    );
    const button = screen.getByTestId("confirm-button") as HTMLButtonElement;
    const reason = screen.getByTestId("change-reason");
    expect(document.activeElement).toBe(reason);
    expect(button.disabled).toBe(true);
    fireEvent.change(reason, { target: { value: "   " } });
    expect(screen.getByTestId("change-reason-hint").textContent).toMatch(/Say why/);
    fireEvent.change(reason, { target: { value: " INC-3 reindex done " } });
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    await vi.waitFor(() => expect(onConfirm).toHaveBeenCalledTimes(1));
    expect(seen).toEqual([{ "X-Change-Reason": "INC-3%20reindex%20done" }]);
  });
});
