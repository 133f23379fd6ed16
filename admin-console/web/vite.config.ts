import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The admin-console binary serves dist/ (hashed assets under /assets/) with an SPA fallback.
// `npm run dev` proxies the API to a locally running binary.
export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", sourcemap: false, chunkSizeWarningLimit: 700 },
  server: { proxy: { "/api": process.env.ADMIN_CONSOLE_URL ?? "http://127.0.0.1:8080" } },
  // Unit tests run in Node; component tests (*.test.tsx) ask for jsdom in their first line.
  test: { include: ["src/**/*.test.{ts,tsx}"], environment: "node" },
});
