"""Stand-ins for the images a registry would give, made here from Debian's packages:

- gcr.io/distroless/cc-debian12:nonroot, the services' runtime: what distroless `cc` is made of
  (libc6, libgcc-s1, libssl3, CA certificates, tzdata, netbase, base-files), unpacked with
  dpkg-deb, plus the passwd/group entries of its non-root user 65532. No shell, no package manager.
- search-platform-test/debian:bookworm, a Debian root file system made by mmdebstrap with the
  third-party servers' Debian packages (and the JRE OpenSearch runs on), the base of
  docker/test/standins.Dockerfile.

Each root file system is cached as a tar under .cache/containers/, keyed by the package list
and the candidate versions apt sees, so a second run on the same machine only imports it.
"""
from __future__ import annotations

import glob
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from engine import Engine, die_with_parent

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "containers"
RECIPE = "3"  # bump when the way a root file system is made changes

RUNTIME_TAG = "gcr.io/distroless/cc-debian12:nonroot"
RUNTIME_PACKAGES = ["base-files", "netbase", "tzdata", "ca-certificates", "libc6", "libgcc-s1", "libssl3"]
DEBIAN_TAG = "search-platform-test/debian:bookworm"
DEBIAN_PACKAGES = ["redis-server", "redis-tools", "prometheus", "prometheus-elasticsearch-exporter", "nginx", "curl",
                   "ca-certificates", "tzdata", "libstdc++6", "python3-minimal", "python3-yaml",
                   "openjdk-17-jre-headless"]
STANDINS = ["opensearch", "redis", "dex", "elasticsearch-exporter", "prometheus", "nginx"]

PASSWD = """root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
"""
GROUP = "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"


def cache_key(name: str, packages: list[str]) -> Path:
    shown = subprocess.run(["apt-cache", "show", "--no-all-versions", *packages],
                           capture_output=True, text=True, check=True).stdout
    versions = sorted(line for line in shown.splitlines() if line.startswith(("Package:", "Version:")))
    digest = hashlib.sha256("\n".join([RECIPE, *packages, *versions]).encode()).hexdigest()[:16]
    return CACHE / f"{name}-{digest}.tar"


def cached(name: str, packages: list[str], make) -> Path:
    tar = cache_key(name, packages)
    if tar.exists():
        print(f"cached root file system {tar.name}", flush=True)
        return tar
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob(f"{name}-*.tar"):
        stale.unlink()
    partial = tar.with_suffix(".partial")
    try:
        make(partial)
    except BaseException:
        partial.unlink(missing_ok=True)  # a half-written tar would only take the disk
        raise
    partial.rename(tar)
    return tar


def make_runtime(tar: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="runtime.") as work:
        work = Path(work)
        debs, root = work / "debs", work / "root"
        debs.mkdir()
        root.mkdir()
        subprocess.run(["apt-get", "download", "-q", *RUNTIME_PACKAGES], cwd=debs, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for deb in sorted(debs.glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        for folder in ["usr/share/doc", "usr/share/man", "usr/share/lintian", "usr/share/info"]:
            shutil.rmtree(root / folder, ignore_errors=True)
        # update-ca-certificates' result: the bundle of every certificate the package ships.
        bundle = root / "etc/ssl/certs/ca-certificates.crt"
        bundle.parent.mkdir(parents=True, exist_ok=True)
        with open(bundle, "wb") as out:
            for certificate in sorted(glob.glob(str(root / "usr/share/ca-certificates/*/*.crt"))):
                out.write(Path(certificate).read_bytes())
        (root / "etc/passwd").write_text(PASSWD)
        (root / "etc/group").write_text(GROUP)
        (root / "home/nonroot").mkdir(parents=True)
        (root / "tmp").mkdir(mode=0o1777, exist_ok=True)
        (root / "tmp").chmod(0o1777)
        subprocess.run(["chown", "65532:65532", str(root / "home/nonroot")], check=True)
        subprocess.run(["tar", "--numeric-owner", "-C", str(root), "-cf", str(tar), "."], check=True)


def make_debian(tar: Path) -> None:
    """mmdebstrap runs in a session of its own: when it cannot write the tar (a full disk), it
    tears itself down with SIGHUP to its whole process group, which would otherwise be `make
    test`'s group and end the run with "Hangup" and no reason. It still gets TERM if we die."""
    command = [
        "mmdebstrap", "--variant=apt", "--include=" + ",".join(DEBIAN_PACKAGES),
        "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
        "--dpkgopt=path-exclude=/usr/share/locale/*",
        # update-alternatives (the JRE's java) links a manual page there and fails without the folder.
        '--setup-hook=mkdir -p "$1/usr/share/man/man1"', "--format=tar", "bookworm", str(tar),
    ]
    done = subprocess.run(command, start_new_session=True, preexec_fn=die_with_parent,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"mmdebstrap exited with {done.returncode} making {tar.name} "
                           f"({free_space(tar.parent)}, {free_space(Path(tempfile.gettempdir()))}): "
                           f"{done.stderr.strip()[-2000:]}")


def free_space(folder: Path) -> str:
    return f"{shutil.disk_usage(folder).free / 2**30:.1f} GiB free in {folder}"


def import_base_images(engine: Engine) -> None:
    runtime = cached("runtime", RUNTIME_PACKAGES, make_runtime)
    engine.run("import", "--change", "USER 65532:65532", "--change", "WORKDIR /home/nonroot",
               "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "--change", "ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
               str(runtime), RUNTIME_TAG)
    debian = cached("debian", DEBIAN_PACKAGES, make_debian)
    engine.run("import", "--change",
               "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", str(debian), DEBIAN_TAG)


def pinned(name: str) -> str:
    """A version pinned in versions.env (what scripts/install-servers.sh fetches)."""
    for line in (ROOT / "versions.env").read_text().splitlines():
        if line.startswith(f"{name}="):
            return line.split("=", 1)[1].strip()
    raise RuntimeError(f"{name} is not in versions.env")


def opensearch_sources() -> tuple[Path, Path]:
    """The secured OpenSearch's ingredients that scripts/install-servers.sh fetched: the unpacked
    integ-test distribution (.cache/servers/opensearch-<version>, untouched: the secured copy
    beside it has the host's demo configuration) and the security plugin's zip, from Maven's
    local repository or, when it is not there, fetched into it as the script does."""
    home = ROOT / ".cache" / "servers" / f"opensearch-{pinned('OPENSEARCH_2_SECURED_VERSION')}"
    group, artifact = pinned("OPENSEARCH_SECURITY_PLUGIN_ARTIFACT").split(":")
    version = pinned("OPENSEARCH_SECURITY_PLUGIN_VERSION")
    plugin = (Path.home() / ".m2/repository" / group.replace(".", "/") / artifact / version
              / f"{artifact}-{version}.zip")
    if not plugin.exists():
        subprocess.run(["mvn", "--batch-mode", "--quiet", "dependency:get", f"-Dartifact={group}:{artifact}:{version}:zip"],
                       check=True, stdout=subprocess.DEVNULL)
    if not (home / "bin/opensearch").exists():
        raise RuntimeError(f"{home} is missing: scripts/install-servers.sh fetches it")
    return home, plugin


def build_standins(engine: Engine) -> None:
    """The third-party servers' stand-ins, one target each of docker/test/standins.Dockerfile."""
    node = shutil.which("node")
    home, plugin = opensearch_sources()
    with tempfile.TemporaryDirectory(prefix="standins.") as context:
        context = Path(context)
        (context / "bin").mkdir()
        for source in [node, ROOT / "docker/test/dex", ROOT / "docker/test/redis-entrypoint",
                       ROOT / "docker/test/opensearch-entrypoint"]:
            shutil.copy2(source, context / "bin")
        shutil.copytree(home, context / "opensearch", symlinks=True, ignore=shutil.ignore_patterns("data", "logs"))
        shutil.copy2(plugin, context / "opensearch-security.zip")
        shutil.copytree(ROOT / "test-support/oidc/node_modules", context / "oidc/node_modules", symlinks=True)
        # .mjs: an ES module without the package.json that marks server.js as one.
        shutil.copy2(ROOT / "test-support/oidc/server.js", context / "oidc/server.mjs")
        for target in STANDINS:
            # No default bridge on this engine: RUN steps get no network (they need none).
            engine.run("build", "-q", "--network", "none", "-f", str(ROOT / "docker/test/standins.Dockerfile"), "--target", target,
                       "-t", f"search-platform-test/{target}", str(context))
