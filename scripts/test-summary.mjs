// Prints the suite's result as one plain closing line ("tests: N passed, N failed"),
// read from vitest's JSON report, so CI logs end with the count whatever ran after the tests.
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(process.argv[2] ?? ".test-results.json", "utf8"));
const failed = report.numFailedTests ?? 0;
process.stdout.write(`tests: ${report.numPassedTests ?? 0} passed, ${failed} failed\n`);
process.exitCode = failed > 0 || (report.numPassedTests ?? 0) === 0 ? 1 : 0;
