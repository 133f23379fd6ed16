import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { MigrationPage } from "./components/MigrationPage";
import { preopenIngressStream, streamUrl } from "./api/stream";
import { parseViewState } from "./lib/urlState";
import "./styles/index.css";
import { markOnce } from "./lib/perfMarks";

markOnce("main");
// `?view=migration`: the migration-readiness page; otherwise the table of ingresses.
const migration = new URLSearchParams(window.location.search).get("view") === "migration";
// The snapshot is the page's largest download: ask for it before React renders (App takes it over).
if (!migration) preopenIngressStream(streamUrl(parseViewState(window.location.search).filters.namespaces));
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    {migration ? <MigrationPage /> : <App />}
  </StrictMode>,
);
