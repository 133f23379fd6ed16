// Reads a `GET /api/ingresses` body while it arrives. The server writes each item of `items` on
// a line of its own (`{"items":[` newline, one record per line, each but the last followed by a
// comma, newline, then `],"errors":...}`; a raw line break can only stand between JSON tokens),
// so the records of every complete line are parsed as soon as their bytes are here: at 50,000
// records (60 MiB of JSON) the page parses while the rest is still being received and
// decompressed, instead of after, and never holds the whole body as one string. A body laid out
// otherwise (an older server, a proxy that rewrites JSON) is parsed whole at its end.

import { markOnce } from "../lib/perfMarks";

const HEAD = '{"items":[';

/**
 * The parsed JSON of a snapshot body, its `items` parsed line by line when the layout allows;
 * `item` is applied to every parsed item (as soon as it is parsed, so that work overlaps the
 * download too) and its result kept in its place. Throws when the body is not JSON.
 */
export async function readSnapshotJson(response: Response, item: (raw: unknown) => unknown): Promise<unknown> {
  const reader = new SnapshotReader(item);
  const body = response.body;
  if (!body) {
    reader.push(await response.text());
  } else {
    const chunks = body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await chunks.read();
      if (done) break;
      reader.push(decoder.decode(value, { stream: true }));
    }
    reader.push(decoder.decode());
  }
  markOnce("snapshot-received");
  return reader.finish();
}

/** The parser behind `readSnapshotJson`: text in as it arrives, the parsed body at the end. */
export class SnapshotReader {
  private layout: "unknown" | "lines" | "whole" = "unknown";
  /** "lines": the text after the last line break read; otherwise every text read so far. */
  private pending = "";
  private readonly items: unknown[] = [];

  constructor(private readonly item: (raw: unknown) => unknown) {}

  push(text: string): void {
    this.pending += text;
    if (this.layout === "unknown") {
      const end = this.pending.indexOf("\n");
      if (end < 0) {
        if (this.pending.length > HEAD.length) this.layout = "whole";
        return;
      }
      if (this.pending.slice(0, end) !== HEAD) {
        this.layout = "whole";
        return;
      }
      this.layout = "lines";
      this.pending = this.pending.slice(end + 1);
    }
    if (this.layout !== "lines") return;
    const cut = this.pending.lastIndexOf("\n");
    if (cut < 0) return;
    let lines = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut + 1);
    if (lines.endsWith(",")) lines = lines.slice(0, -1);
    if (lines.length === 0) return;
    const parsed = JSON.parse(`[${lines}]`) as unknown[];
    for (const raw of parsed) this.items.push(this.item(raw));
  }

  finish(): unknown {
    if (this.layout !== "lines") {
      const body = JSON.parse(this.pending) as unknown;
      const items = (body as { items?: unknown } | null)?.items;
      if (Array.isArray(items)) for (let index = 0; index < items.length; index++) items[index] = this.item(items[index]);
      return body;
    }
    // What is left is the last line: `],"errors":...}`.
    if (!this.pending.startsWith("]")) throw new SyntaxError("snapshot body: its items are not closed");
    const rest = JSON.parse(`${HEAD}${this.pending}`) as Record<string, unknown>;
    rest.items = this.items;
    return rest;
  }
}
