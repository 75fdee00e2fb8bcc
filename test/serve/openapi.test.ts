// `tessera serve --openapi` prints a JSON OpenAPI 3.1 document whose paths and methods are exactly
// the router's routes, whose every $ref resolves, and whose error schema names every refusal code.
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/serve/errors.js";
import { ROUTES } from "../../src/serve/router.js";
import { runCli } from "./harness.js";

describe("tessera serve --openapi", () => {
  it("prints a parseable OpenAPI 3.1 document of exactly the service's routes", async () => {
    const r = await runCli(["serve", "--openapi"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown>; operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((x) => `${x.method} ${x.path}`).sort());
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) {
        expect(op.operationId).toMatch(/^[a-z]+$/);
        expect(Object.keys(op.responses)).toContain("200");
        for (const status of Object.keys(op.responses)) expect(status).toMatch(/^[2-5]\d\d$/);
      }
    // every $ref names a schema the document has
    const refs = [...r.stdout.matchAll(/"\$ref": "#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty(ref);
    const codes = (
      doc.components.schemas.Error as { properties: { error: { properties: { code: { enum: string[] } } } } }
    ).properties.error.properties.code.enum;
    expect(codes.sort()).toEqual([...Object.keys(ERROR_STATUS), "internal"].sort());
    // each refusal status a route can give is documented on it
    expect(Object.keys(doc.paths["/v1/check"]!.post!.responses)).toEqual(
      expect.arrayContaining(["400", "401", "403", "413", "415", "503"]),
    );
  });
});
