// Keeps the console's tabs on the server (tabsSync.ts): loads them when the console opens,
// writes them 800 ms after the last change (at once when the console closes or the page goes
// away), merges and writes again after a 409, and falls back
// to this browser's storage with a notice when the server's store cannot be used.
import { useEffect, useRef, useState } from "react";
import type { ConsoleTabs } from "./tabs";
import { fetchServerTabs, mergeConflict, mergeOnLoad, putServerTabs } from "./tabsSync";

const SAVE_AFTER_MS = 800;

export function useServerTabs(
  clusterId: string,
  tabs: ConsoleTabs,
  setTabs: (update: (state: ConsoleTabs) => ConsoleTabs) => void,
  openedHere: ReadonlySet<string>,
): string | null {
  // null: not loaded yet, or the server is not used (see `notice`).
  const version = useRef<number | null>(null);
  const written = useRef<ConsoleTabs | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void fetchServerTabs(clusterId).then((answer) => {
      if (!live) return;
      if (answer.kind !== "ok") {
        setNotice(`Tabs are kept in this browser only: ${answer.kind === "unavailable" ? answer.message : "unexpected answer"}`);
        return;
      }
      version.current = answer.server.version;
      setTabs((local) => mergeOnLoad(local, answer.server, openedHere));
      setLoaded(true);
    });
    return () => {
      live = false;
    };
  }, [clusterId, setTabs, openedHere]);

  // What is not written yet goes when the console closes or the page is left (a reload).
  const latest = useRef(tabs);
  latest.current = tabs;
  useEffect(() => {
    if (!loaded) return;
    const flush = () => {
      const state = latest.current;
      if (version.current === null || written.current === state) return;
      written.current = state;
      void putServerTabs(clusterId, state, version.current, true);
    };
    window.addEventListener("pagehide", flush);
    return () => {
      window.removeEventListener("pagehide", flush);
      flush();
    };
  }, [clusterId, loaded]);

  useEffect(() => {
    if (!loaded || version.current === null || written.current === tabs) return;
    const timer = window.setTimeout(() => {
      const send = async (state: ConsoleTabs, from: number, retry: boolean) => {
        const answer = await putServerTabs(clusterId, state, from);
        if (answer.kind === "ok") {
          version.current = answer.server.version;
          written.current = state;
          setNotice(null);
        } else if (answer.kind === "conflict" && retry) {
          // Another browser wrote since: keep both, then write the merge over theirs.
          const merged = mergeConflict(state, answer.current);
          version.current = answer.current.version;
          written.current = merged;
          setTabs(() => merged);
          await send(merged, answer.current.version, false);
        } else {
          setNotice(`Tabs are kept in this browser only: ${answer.kind === "unavailable" ? answer.message : "they changed elsewhere"}`);
        }
      };
      void send(tabs, version.current ?? 0, true);
    }, SAVE_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, [clusterId, tabs, loaded, setTabs]);

  return notice;
}
