#!/usr/bin/env python3
"""Indexes documents into CLUSTER_URL/big so that `big/_search?size=N` answers about TARGET_MB
megabytes. Usage: seed_large.py CLUSTER_URL TARGET_MB; prints the size to ask for."""

import json
import sys
import urllib.request

url, target_mb = sys.argv[1].rstrip("/"), int(sys.argv[2])
doc_bytes = 4000
count = target_mb * 1_000_000 // (doc_bytes + 150)
filler = "x" * doc_bytes
batch = 500
for first in range(0, count, batch):
    lines = []
    for n in range(first, min(first + batch, count)):
        lines.append(json.dumps({"index": {"_index": "big", "_id": str(n)}}))
        lines.append(json.dumps({"n": n, "text": filler}))
    request = urllib.request.Request(
        f"{url}/_bulk", data=("\n".join(lines) + "\n").encode(), method="POST",
        headers={"content-type": "application/x-ndjson"})
    urllib.request.urlopen(request).read()
urllib.request.urlopen(urllib.request.Request(f"{url}/big/_refresh", method="POST")).read()
print(count)
