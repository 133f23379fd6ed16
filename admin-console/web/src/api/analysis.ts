// The `_analyze` tester and the cat-API browser (docs/admin-console.md, "Analyze" and "Cat
// APIs"). Both only read: viewer.
import { cluster, request } from "./client";
import type { AnalyzeResult, CatApiList, CatTable } from "./wire";

/** `POST /analyze`: the text and one of `analyzer`, `index` + `field`, or `tokenizer` with
 * `filters` and `charFilters` (by name); `index` may also go with an analyzer or a chain. The
 * server refuses unknown fields, text over 10,000 characters and more than 20 filters. */
export interface AnalyzeRequest {
  text: string;
  index?: string;
  analyzer?: string;
  field?: string;
  tokenizer?: string;
  filters?: string[];
  charFilters?: string[];
  explain?: boolean;
}

export const analysisApi = {
  analyze: (id: string, body: AnalyzeRequest) =>
    request<AnalyzeResult>(`${cluster(id)}/analyze`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
  catApis: (id: string, signal?: AbortSignal) => request<CatApiList>(`${cluster(id)}/cat`, undefined, signal),
  cat: (id: string, api: string, repository: string | null, signal?: AbortSignal) =>
    request<CatTable>(
      `${cluster(id)}/cat/${encodeURIComponent(api)}${repository ? `?repository=${encodeURIComponent(repository)}` : ""}`,
      undefined,
      signal,
    ),
};
