// "Open in console": a small button the views put next to what they show; it opens the console
// with the equivalent request(s) in a new tab (see console/tabs.ts).
import { openInConsole, type ConsoleRequest } from "../console/tabs";
import { TerminalIcon } from "./icons";

interface Props {
  request: ConsoleRequest | ConsoleRequest[];
  label?: string;
}

export function OpenInConsole({ request, label = "Open in console" }: Props) {
  return (
    <button
      type="button"
      className="btn btn-ghost btn-small"
      data-testid="open-in-console"
      title="Open the request in a new console tab"
      onClick={(e) => {
        e.stopPropagation();
        openInConsole(request);
      }}
    >
      <TerminalIcon /> {label}
    </button>
  );
}
