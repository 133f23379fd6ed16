import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// `npm run dev` proxies the API to a locally running ingress-dash (`make run` starts one on 3000).
const backend = process.env.INGRESS_DASH_URL ?? "http://127.0.0.1:3000";

export default defineConfig({
  plugins: [react()],
  // The binary serves dist/ at the root with an SPA fallback, so assets use absolute paths.
  base: "/",
  build: {
    outDir: "dist",
  },
  server: {
    proxy: { "/api": { target: backend, changeOrigin: true } },
  },
  // Unit tests run in Node; component tests (*.test.tsx) ask for jsdom in their first line.
  test: {
    include: ["src/**/*.test.{ts,tsx}"],
    environment: "node",
  },
});
