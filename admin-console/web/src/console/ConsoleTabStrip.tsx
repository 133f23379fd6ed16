// The strip of console tabs above the editor: switch, add (+), close (×), rename (double-click,
// Enter keeps, Escape drops). The model is in tabs.ts.
import { useState } from "react";
import { addTab, closeTab, renameTab, switchTab, TAB_LIMIT, type ConsoleTabs } from "./tabs";

interface Props {
  tabs: ConsoleTabs;
  onChange: (update: (state: ConsoleTabs) => ConsoleTabs) => void;
  defaultText: string;
}

export function ConsoleTabStrip({ tabs, onChange, defaultText }: Props) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const [draft, setDraft] = useState("");

  const commit = () => {
    if (renaming) onChange((state) => renameTab(state, renaming, draft));
    setRenaming(null);
  };

  return (
    <div className="console-text-tabs" role="tablist" aria-label="Console tabs" data-testid="console-text-tabs">
      {tabs.tabs.map((tab) => {
        const active = tab.id === tabs.active;
        return (
          <span key={tab.id} className={`console-text-tab ${active ? "active" : ""}`} data-testid="console-text-tab">
            {renaming === tab.id ? (
              <input
                className="input input-small"
                aria-label="Tab name"
                autoFocus
                value={draft}
                maxLength={60}
                onChange={(e) => setDraft(e.target.value)}
                onBlur={commit}
                onKeyDown={(e) => {
                  if (e.key === "Enter") commit();
                  if (e.key === "Escape") {
                    e.preventDefault();
                    setRenaming(null);
                  }
                }}
              />
            ) : (
              <button
                role="tab"
                aria-selected={active}
                title="Double-click to rename"
                onClick={() => onChange((state) => switchTab(state, tab.id))}
                onDoubleClick={() => {
                  setDraft(tab.title);
                  setRenaming(tab.id);
                }}
              >
                {tab.title}
              </button>
            )}
            <button
              className="btn btn-ghost btn-icon console-text-tab-close"
              aria-label={`Close tab ${tab.title}`}
              title="Close tab"
              onClick={() => onChange((state) => closeTab(state, tab.id, defaultText))}
            >
              ×
            </button>
          </span>
        );
      })}
      <button
        className="btn btn-ghost btn-small"
        aria-label="New tab"
        title={`New tab (at most ${TAB_LIMIT}; the oldest goes)`}
        data-testid="console-new-tab"
        onClick={() => onChange((state) => addTab(state, defaultText))}
      >
        +
      </button>
    </div>
  );
}
