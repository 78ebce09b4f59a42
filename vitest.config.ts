import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Storage-dependent suites run once per database engine; the unit suite once.
// The fuzz suite starts the service too, so it runs on both engines like the integration tests.
const integration = ["test/integration/**/*.test.ts", "test/fuzz/**/*.test.ts"];
// Every service a test starts refuses the database handle inside its own transactions, on
// PostgreSQL too, where production leaves that guard off for its cost (store/open.ts).
const GUARD = { ARCHIVIST_TRANSACTION_GUARD: "on" };

export default defineConfig({
  // The plugins import the client by its package entry (tsconfig.json `paths`): tests run its sources.
  resolve: {
    alias: { "vcon-archivist/client": fileURLToPath(new URL("./src/client/index.ts", import.meta.url)) },
  },
  test: {
    pool: "forks",
    maxWorkers: 2,
    // A limit for a hang, not a timing: CI's machine has run the suite 2.5x slower than a quiet
    // one, and a search test that takes 8 s here passed 30 s there (stop 39).
    testTimeout: 90_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], env: GUARD } },
      { extends: true, test: { name: "pglite", include: integration, env: { ...GUARD, TEST_DB: "pglite" } } },
      {
        extends: true,
        test: { name: "postgres", include: integration, env: { ...GUARD, TEST_DB: "postgres" } },
      },
      {
        extends: true,
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], env: { ...GUARD, TEST_DB: "pglite" } },
      },
    ],
  },
});
