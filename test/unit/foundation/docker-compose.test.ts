import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// No Docker engine runs here: the deployment files are checked for the topology they describe.
const root = new URL("../../../", import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), "utf8");

interface Service {
  build?: unknown;
  image?: string;
  user?: string;
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  profiles?: string[];
  volumes?: string[];
  secrets?: string[];
  ports?: string[];
}
const compose = parse(read("docker-compose.yml")) as {
  services: Record<string, Service>;
  secrets?: Record<string, { environment?: string }>;
};
const services = compose.services;
const dockerfile = read("Dockerfile");

describe("docker-compose.yml", () => {
  it("runs the real topology: api, worker, PostgreSQL and Redis (and Prometheus when asked)", () => {
    expect(Object.keys(services).sort()).toEqual(["api", "postgres", "prometheus", "redis", "worker"]);
    expect(services.api?.command?.slice(-2)).toEqual(["serve", "--no-workers"]);
    expect(services.worker?.command?.at(-1)).toBe("worker");
    for (const name of ["api", "worker"]) {
      const env = services[name]?.environment ?? {};
      expect(new URL(env.DATABASE_URL ?? "").hostname, name).toBe("postgres");
      expect(new URL(env.REDIS_URL ?? "").hostname, name).toBe("redis");
    }
  });

  it("builds the api and the worker from this repository (neither depends on an image built elsewhere)", () => {
    expect(services.api?.build).toBe(".");
    expect(services.worker?.build).toBe(".");
  });

  it("gives every service a healthcheck and a restart policy, and starts each after what it needs is healthy", () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.healthcheck?.test?.[0], name).toBe("CMD");
      expect(s.restart, name).toBe("unless-stopped");
    }
    for (const name of ["api", "worker"])
      for (const need of ["postgres", "redis"])
        expect(services[name]?.depends_on?.[need]?.condition, `${name} → ${need}`).toBe("service_healthy");
    expect(services.worker?.depends_on?.api?.condition).toBe("service_healthy");
    // The healthcheck script the api and the worker run is in the image.
    for (const name of ["api", "worker"]) {
      const script = services[name]?.healthcheck?.test.find((a) => a.endsWith(".mjs"));
      expect(script && existsSync(new URL(script, root)), name).toBe(true);
      expect(dockerfile).toContain(script);
    }
  });

  it("runs the api and the worker as a non-root user", () => {
    for (const name of ["api", "worker"]) expect(services[name]?.user, name).toBe("node");
    const stages = dockerfile.split(/^FROM /m);
    const runtime = stages.at(-1) ?? "";
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).not.toMatch(/^USER root$/m);
  });

  it("runs Prometheus, with the profile `monitoring`, on the alerting rules and the api's metrics token", () => {
    const p = services.prometheus;
    // Pinned by version: a moving tag would change what evaluates the rules under the operator.
    expect(p?.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
    expect(p?.profiles).toEqual(["monitoring"]);
    expect(p?.volumes).toContain("./deploy/prometheus:/etc/prometheus:ro");
    expect(p?.command).toContain("--config.file=/etc/prometheus/prometheus.yml");
    expect(existsSync(new URL("deploy/prometheus/prometheus.yml", root))).toBe(true);
    expect(read("deploy/prometheus/prometheus.yml")).toContain(
      "credentials_file: /run/secrets/archivist_metrics_token",
    );
    // The token reaches Prometheus as a secret file, and the api as the setting it serves /metrics with.
    expect(p?.secrets).toEqual(["archivist_metrics_token"]);
    expect(compose.secrets?.archivist_metrics_token?.environment).toBe("ARCHIVIST_METRICS_TOKEN");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's interpolation, not a JavaScript template
    expect(services.api?.environment?.ARCHIVIST_METRICS_TOKEN).toBe("${ARCHIVIST_METRICS_TOKEN:-}");
    // Its page has no login: reachable from this machine only.
    expect(p?.ports?.every((port) => port.startsWith("127.0.0.1:"))).toBe(true);
    expect(p?.depends_on?.api?.condition).toBe("service_healthy");
  });
});
