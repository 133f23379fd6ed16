"""A small HTTP client for the container test: one request, or a browser-like walk through
redirects with a cookie jar (scoped by host name and path, as a browser scopes them), where host names only the containers know
(dex:5556, localhost:9000) are mapped to the ports published on 127.0.0.1."""
from __future__ import annotations

import http.client
import json
import urllib.parse


class Response:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes, url: str = "") -> None:
        self.status, self.headers, self.body, self.url = status, headers, body, url

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def request(host: str, port: int, method: str, path: str, headers: dict | None = None,
            body: bytes | None = None, timeout: float = 15) -> Response:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Response(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


def answers(host: str, port: int, path: str) -> bool:
    try:
        return request(host, port, "GET", path, timeout=3).status == 200
    except OSError:
        return False


class Browser:
    def __init__(self, host_map: dict[str, tuple[str, int]]) -> None:
        self.host_map = host_map  # "dex:5556" -> ("127.0.0.1", 41234)
        # (host name, path, name) -> value: as a browser keeps them, for the host whatever its port
        # (authproxy's session on localhost:9001 reaches the front door on localhost:8880).
        self.cookies: dict[tuple[str, str, str], str] = {}

    def locate(self, url: str) -> tuple[str, int, str]:
        parts = urllib.parse.urlsplit(url)
        host, port = self.host_map.get(parts.netloc, (parts.hostname, parts.port or 80))
        path = parts.path or "/"
        return host, port, path + (f"?{parts.query}" if parts.query else "")

    def cookie(self, name: str) -> str | None:
        return next((value for (_, _, key), value in self.cookies.items() if key == name), None)

    def get(self, url: str, max_hops: int = 20, headers: dict | None = None) -> Response:
        for _ in range(max_hops):
            host, port, target = self.locate(url)
            path = target.split("?", 1)[0]
            hostname = urllib.parse.urlsplit(url).hostname or ""
            sent = [f"{name}={value}" for (chost, cpath, name), value in self.cookies.items()
                    if chost == hostname and (path == cpath or path.startswith(cpath.rstrip("/") + "/") or cpath == "/")]
            # The Host header a browser sends: the name in the URL, whatever it resolves to.
            sent_headers = {"Host": urllib.parse.urlsplit(url).netloc, **(headers or {})}
            if sent:
                sent_headers["Cookie"] = "; ".join(sent)
            response = request(host, port, "GET", target, sent_headers)
            response.url = url
            for line in response.all("set-cookie"):
                self.store(hostname, line)
            location = response.header("location")
            if response.status in (301, 302, 303, 307, 308) and location:
                url = urllib.parse.urljoin(url, location)
                continue
            return response
        raise RuntimeError(f"more than {max_hops} redirects, last {url}")

    def store(self, hostname: str, line: str) -> None:
        first, *attributes = [part.strip() for part in line.split(";")]
        name, _, value = first.partition("=")
        path, expired = "/", False
        for attribute in attributes:
            key, _, val = attribute.partition("=")
            if key.lower() == "path" and val:
                path = val
            if key.lower() == "max-age" and val.strip() in ("0", "-1"):
                expired = True
            if key.lower() == "expires" and "1970" in val:
                expired = True
        if expired or value == "":
            self.cookies.pop((hostname, path, name), None)
        else:
            self.cookies[(hostname, path, name)] = value
