import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { HostsPage } from "./components/HostsPage";
import { MigrationPage } from "./components/MigrationPage";
import { preopenIngressStream, streamUrl } from "./api/stream";
import { parseViewState } from "./lib/urlState";
import "./styles/index.css";
import { markOnce } from "./lib/perfMarks";

markOnce("main");
// `?view=migration`: the migration-readiness page; `?view=hosts`: the Hosts page; otherwise
// the table of ingresses.
const page = new URLSearchParams(window.location.search).get("view");
const migration = page === "migration";
const hosts = page === "hosts";
// The snapshot is the page's largest download: ask for it before React renders (App takes it over).
if (!migration && !hosts) preopenIngressStream(streamUrl(parseViewState(window.location.search).filters.namespaces));
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    {migration ? <MigrationPage /> : hosts ? <HostsPage /> : <App />}
  </StrictMode>,
);
