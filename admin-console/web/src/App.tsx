// Application shell: top bar, routes, and the console that lives beside every cluster view.
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { clusterPath, matchRoute, navigate, useLocation } from "./lib/router";
import { browserStorage } from "./lib/storage";
import { Prefs } from "./lib/prefs";
import { useTheme } from "./lib/theme";
import { HistoryStore } from "./console/history";
import { OPEN_EVENT } from "./console/tabs";
import { ClusterList } from "./views/ClusterList";
import { ClusterLayout } from "./views/ClusterLayout";
import { Link } from "./components/Link";
import { MoonIcon, SunIcon } from "./components/icons";
import { EmptyState } from "./components/common";
import { SignedIn } from "./components/SignedIn";
import { api } from "./api/client";
import { useAsync } from "./lib/useAsync";
import { WhoAmIProvider } from "./lib/whoami";
import { ReasonPromptHost } from "./components/ChangeReason";

// CodeMirror loads with the console, on first use.
const ConsoleHost = lazy(() => import("./console/ConsoleHost").then((m) => ({ default: m.ConsoleHost })));

export function App() {
  const storage = useMemo(() => browserStorage(), []);
  const prefs = useMemo(() => new Prefs(storage), [storage]);
  const store = useMemo(() => new HistoryStore(storage), [storage]);
  const [theme, toggleTheme] = useTheme(storage);
  const location = useLocation();
  const route = matchRoute(location.pathname);
  const clusterId = route.name === "cluster" ? route.clusterId : null;
  // The console belongs to a cluster; it stays open while moving between that cluster's views.
  const [consoleFor, setConsoleFor] = useState<string | null>(null);
  const [clusterName, setClusterName] = useState<string>("");
  // Who is signed in and their roles: loaded once (roles change at the next sign-in), refreshed
  // every few minutes.
  const whoami = useAsync((signal) => api.whoami(signal), [], 300_000);
  const consoleOpen = consoleFor !== null && consoleFor === clusterId;
  // Leaving the cluster closes its console; coming back does not reopen it by surprise.
  useEffect(() => {
    setConsoleFor((open) => (open === clusterId ? open : null));
  }, [clusterId]);

  // "Open in console" from a view opens this cluster's console; the console adds the tab.
  useEffect(() => {
    if (!clusterId) return;
    const open = () => setConsoleFor(clusterId);
    window.addEventListener(OPEN_EVENT, open);
    return () => window.removeEventListener(OPEN_EVENT, open);
  }, [clusterId]);

  const closeConsole = useCallback(() => setConsoleFor(null), []);
  const toggleConsole = useCallback(
    () => setConsoleFor((open) => (open === clusterId ? null : clusterId)),
    [clusterId],
  );

  return (
    <WhoAmIProvider value={whoami.data}>
    <div className={`app ${consoleOpen ? "with-console" : ""}`}>
      <header className="topbar">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden>
            ⌁
          </span>
          Admin console
        </Link>
        {clusterId && (
          <nav className="breadcrumbs" aria-label="Breadcrumbs">
            <Link to="/">Clusters</Link>
            <span aria-hidden>/</span>
            <Link to={clusterPath(clusterId)}>{clusterName || clusterId}</Link>
          </nav>
        )}
        <span className="spacer" />
        <SignedIn clusterId={clusterId} />
        <button
          className="btn btn-ghost btn-icon"
          onClick={toggleTheme}
          aria-label={theme === "dark" ? "Switch to light theme" : "Switch to dark theme"}
          title={theme === "dark" ? "Light theme" : "Dark theme"}
          data-testid="theme-toggle"
        >
          {theme === "dark" ? <SunIcon /> : <MoonIcon />}
        </button>
      </header>
      <div className="workspace">
        <main className="main">
          {route.name === "clusters" && <ClusterList />}
          {route.name === "cluster" && (
            <ClusterLayout
              key={route.clusterId}
              clusterId={route.clusterId}
              view={route.view}
              item={route.item}
              search={location.search}
              consoleOpen={consoleOpen}
              onToggleConsole={toggleConsole}
              onName={setClusterName}
              theme={theme}
            />
          )}
          {route.name === "not-found" && (
            <div className="page">
              <EmptyState title="This page does not exist">
                <button className="btn" onClick={() => navigate("/")}>
                  Go to the cluster list
                </button>
              </EmptyState>
            </div>
          )}
        </main>
        {consoleOpen && clusterId && (
          <Suspense fallback={<aside className="console console-drawer console-loading" aria-busy="true" />}>
          <ConsoleHost
            clusterId={clusterId}
            clusterName={clusterName || clusterId}
            prefs={prefs}
            store={store}
            onClose={closeConsole}
          />
          </Suspense>
        )}
      </div>
      <ReasonPromptHost />
    </div>
    </WhoAmIProvider>
  );
}
