// The snapshot repositories of a cluster: list (pick one to see its snapshots), register a
// shared file system or URL repository, verify one, unregister one.
import { useState } from "react";
import type { Repository, RepositoryType, RepositoryVerification } from "../../api/wire";
import { snapshotsApi } from "../../api/snapshots";
import { ACTION_ROLES } from "../../lib/access";
import { useClusterAccess } from "../../lib/whoami";
import { Card, EmptyState } from "../../components/common";
import { nameProblem, repositoryPlace } from "./logic";
import { ConfirmDialog } from "../../components/ConfirmDialog";

interface Props {
  clusterId: string;
  repositories: Repository[];
  selected: string | null;
  onSelect: (repo: string) => void;
  onChanged: (message: string) => void;
}

export function Repositories({ clusterId, repositories, selected, onSelect, onChanged }: Props) {
  const access = useClusterAccess(clusterId);
  const registerDenied = access.denied(ACTION_ROLES.registerRepository);
  const verifyDenied = access.denied(ACTION_ROLES.verifyRepository);
  const deleteDenied = access.denied(ACTION_ROLES.deleteRepository);
  const [registering, setRegistering] = useState(false);
  const [verifying, setVerifying] = useState<string | null>(null);
  const [verification, setVerification] = useState<{ repo: string; result: RepositoryVerification } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const verify = async (repo: string) => {
    setVerifying(repo);
    try {
      setVerification({ repo, result: await snapshotsApi.verify(clusterId, repo) });
    } catch (e) {
      setVerification({ repo, result: { verified: false, nodes: [], error: (e as Error).message } });
    } finally {
      setVerifying(null);
    }
  };

  return (
    <Card
      title="Repositories"
      testId="repositories"
      actions={
        <span className="denied-wrap" title={registerDenied ?? undefined}>
          <button
            className="btn btn-small"
            disabled={registerDenied !== null}
            onClick={() => setRegistering((r) => !r)}
            data-testid="register-repository"
          >
            Register repository
          </button>
        </span>
      }
    >
      {registering && (
        <RegisterForm
          clusterId={clusterId}
          onDone={(name) => {
            setRegistering(false);
            onChanged(`Repository ${name} registered.`);
            onSelect(name);
          }}
          onCancel={() => setRegistering(false)}
        />
      )}
      {repositories.length === 0 ? (
        <EmptyState title="No snapshot repository">
          Register one: a shared file system (its location listed in every node's <code>path.repo</code>) or a URL.
        </EmptyState>
      ) : (
        <ul className="snap-repos" role="listbox" aria-label="Repositories">
          {repositories.map((r) => (
            <li
              key={r.name}
              className={`snap-repo ${r.name === selected ? "active" : ""}`}
              role="option"
              aria-selected={r.name === selected}
              data-testid={`repository-${r.name}`}
            >
              <button className="snap-repo-pick" onClick={() => onSelect(r.name)}>
                <span className="mono snap-repo-name">{r.name}</span>
                <span className="pill">{r.type}</span>
                <span className="muted snap-repo-place" title={repositoryPlace(r.settings)}>
                  {repositoryPlace(r.settings)}
                </span>
              </button>
              <span className="snap-repo-actions">
                <span className="denied-wrap" title={verifyDenied ?? undefined}>
                  <button
                    className="btn btn-small"
                    disabled={verifyDenied !== null || verifying === r.name}
                    onClick={() => void verify(r.name)}
                    data-testid="verify-repository"
                  >
                    {verifying === r.name ? "Verifying…" : "Verify"}
                  </button>
                </span>
                <span className="denied-wrap" title={deleteDenied ?? undefined}>
                  <button
                    className="btn btn-small"
                    disabled={deleteDenied !== null}
                    onClick={() => setDeleting(r.name)}
                    data-testid="delete-repository"
                    aria-label={`Delete repository ${r.name}`}
                  >
                    Delete
                  </button>
                </span>
              </span>
              {verification?.repo === r.name && <VerificationResult result={verification.result} />}
            </li>
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Unregister repository ${deleting}`}
          typed={deleting}
          confirmLabel="Unregister"
          danger
          testId="typed-confirm"
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            await snapshotsApi.deleteRepository(clusterId, deleting, deleting);
            setDeleting(null);
            onChanged(`Repository ${deleting} unregistered; its files stay where they are.`);
          }}
        >
          <p className="muted">
            The cluster forgets the repository; the snapshots' files stay in its location and it can be registered again.
          </p>
        </ConfirmDialog>
      )}
    </Card>
  );
}

function VerificationResult({ result }: { result: RepositoryVerification }) {
  if (!result.verified)
    return (
      <div className="banner banner-error action-error snap-verify" role="alert" data-testid="verification">
        Verification failed: {result.error}
      </div>
    );
  return (
    <div className="banner banner-ok action-error snap-verify" role="status" data-testid="verification">
      Verified by {result.nodes.length} node{result.nodes.length === 1 ? "" : "s"}: {result.nodes.map((n) => n.name).join(", ")}
    </div>
  );
}

function RegisterForm({ clusterId, onDone, onCancel }: { clusterId: string; onDone: (name: string) => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState<RepositoryType>("fs");
  const [place, setPlace] = useState("");
  const [compress, setCompress] = useState(true);
  const [readonly, setReadonly] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = name ? nameProblem(name, "repository") : null;

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const settings: Record<string, string | boolean> =
        type === "fs" ? { location: place.trim(), compress, ...(readonly ? { readonly: true } : {}) } : { url: place.trim() };
      await snapshotsApi.register(clusterId, name, { type, settings });
      onDone(name);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="snap-form"
      data-testid="register-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="snap-field">
        <span>Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} aria-label="Repository name" placeholder="backups" />
      </label>
      <label className="snap-field">
        <span>Type</span>
        <select value={type} onChange={(e) => setType(e.target.value as RepositoryType)} aria-label="Repository type">
          <option value="fs">Shared file system (fs)</option>
          <option value="url">Read-only URL (url)</option>
        </select>
      </label>
      <label className="snap-field snap-field-wide">
        <span>{type === "fs" ? "Location" : "URL"}</span>
        <input
          value={place}
          onChange={(e) => setPlace(e.target.value)}
          aria-label={type === "fs" ? "Location" : "URL"}
          placeholder={type === "fs" ? "/mnt/backups" : "https://backups.example.com/repo"}
        />
        <small className="muted">
          {type === "fs"
            ? "Must be listed in path.repo of every master and data node (elasticsearch.yml / opensearch.yml), on a file system they all share."
            : "Must match repositories.url.allowed_urls on every node (file: URLs must be under path.repo). Snapshots can be restored from it, not taken."}
        </small>
      </label>
      {type === "fs" && (
        <div className="snap-checks">
          <label>
            <input type="checkbox" checked={compress} onChange={(e) => setCompress(e.target.checked)} /> Compress metadata
          </label>
          <label>
            <input type="checkbox" checked={readonly} onChange={(e) => setReadonly(e.target.checked)} /> Read-only
          </label>
        </div>
      )}
      {(problem || error) && (
        <div className="banner banner-error action-error" role="alert" data-testid="register-error">
          {problem ?? error}
        </div>
      )}
      <div className="snap-form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !name || problem !== null || !place.trim()} data-testid="register-submit">
          {busy ? "Registering…" : "Register"}
        </button>
      </div>
    </form>
  );
}
