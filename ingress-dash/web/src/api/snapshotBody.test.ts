import { describe, expect, it } from "vitest";
import { readSnapshotJson, SnapshotReader } from "./snapshotBody";

// The server's line-per-item layout (ingress-dash/src/http/snapshot_body.rs, Layout::LinePerItem).
const record = (name: string) => ({ kind: "Ingress", uid: `u-${name}`, name, namespace: "shop", hosts: [`${name}.example.com`] });
const rest = { errors: [{ namespace: "team-a", code: "forbidden", message: "no, \"really\"" }], notices: [], expiryWarningDays: 14, eventId: 7 };
function lineBody(items: unknown[]): string {
  const lines = items.map((item) => JSON.stringify(item));
  const tail = JSON.stringify({ items: [], ...rest }).slice('{"items":['.length);
  return `{"items":[${lines.map((line) => `\n${line}`).join(",")}\n${tail}`;
}
const marked = (raw: unknown) => ({ ...(raw as object), seen: true });
const expected = (items: unknown[]) => ({ items: items.map(marked), ...rest });

/** Feeds `text` to a reader cut at `cuts` (character offsets). */
function read(text: string, cuts: number[]): unknown {
  const reader = new SnapshotReader(marked);
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    reader.push(text.slice(from, cut));
    from = cut;
  }
  return reader.finish();
}

describe("the snapshot body read as it arrives", () => {
  const items = [record("web"), record("api"), record("élan-ünïcode"), record("shop")];

  it("gives the parsed body whatever the chunks, each item passed through `item`", () => {
    const text = lineBody(items);
    expect(JSON.parse(text)).toEqual({ items, ...rest });
    for (let cut = 0; cut <= text.length; cut++) {
      expect(read(text, [cut]), `cut at ${cut}`).toEqual(expected(items));
    }
    expect(read(text, Array.from({ length: text.length }, (_, index) => index))).toEqual(expected(items));
  });

  it("reads no items and one item", () => {
    expect(read(lineBody([]), [3])).toEqual(expected([]));
    expect(read(lineBody([items[0]]), [15, 40])).toEqual(expected([items[0]]));
  });

  it("parses a body on one line (another layout) whole at its end", () => {
    const text = JSON.stringify({ items, ...rest });
    expect(read(text, [5, 60, 61])).toEqual(expected(items));
    expect(read("{}", [])).toEqual({});
  });

  it("throws on a body cut short or not JSON", () => {
    const text = lineBody(items);
    expect(() => read(text.slice(0, text.lastIndexOf("\n")), [20])).toThrow(SyntaxError);
    expect(() => read(text.slice(0, text.length - 1), [20])).toThrow(SyntaxError);
    expect(() => read(`{"items":[\n{"kind":`, [])).toThrow(SyntaxError);
    expect(() => read("<html>proxy error</html>", [])).toThrow(SyntaxError);
  });

  it("decodes UTF-8 cut inside a character from a streamed response", async () => {
    const bytes = new TextEncoder().encode(lineBody(items));
    const inside = bytes.indexOf(0xc3) + 1; // between the two bytes of "é"
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const [from, to] of [[0, inside], [inside, inside + 7], [inside + 7, bytes.length]]) controller.enqueue(bytes.slice(from, to));
        controller.close();
      },
    });
    expect(await readSnapshotJson(new Response(stream), marked)).toEqual(expected(items));
  });
});
