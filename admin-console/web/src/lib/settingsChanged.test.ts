import { describe, expect, it, vi } from "vitest";
import { announceSettingsChanged, onSettingsChanged } from "./settingsChanged";

describe("settings changed signal", () => {
  it("reaches the listeners of that cluster only, until they unsubscribe", () => {
    const prod = vi.fn();
    const staging = vi.fn();
    const stopProd = onSettingsChanged("prod", prod);
    const stopStaging = onSettingsChanged("staging", staging);
    announceSettingsChanged("prod", "cluster.routing.allocation.enable");
    expect(prod).toHaveBeenCalledWith("cluster.routing.allocation.enable");
    expect(staging).not.toHaveBeenCalled();
    stopProd();
    announceSettingsChanged("prod", "indices.recovery.max_bytes_per_sec");
    expect(prod).toHaveBeenCalledTimes(1);
    stopStaging();
  });
});
