import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
const [dir, a, b] = process.argv.slice(2);
const child = (dist) =>
  `const { openWorkspace } = await import(${JSON.stringify(dist + "/evidence/index.js")}); const t0 = process.hrtime.bigint(); const ws = await openWorkspace(process.argv[1]); ws.close(); const u = process.resourceUsage(); console.log(JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: (u.userCPUTime + u.systemCPUTime) / 1e3 }));`;
const res = { [a]: [], [b]: [] };
for (let r = 0; r < 4; r++)
  for (const d of r % 2 ? [a, b] : [b, a]) {
    rmSync(dir + "/.tessera", { recursive: true, force: true });
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", child(d), dir], { encoding: "utf8" });
    res[d].push(JSON.parse(out.stdout));
  }
const med = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
for (const d of [a, b])
  console.log(
    d,
    "wall ms",
    med(res[d].map((x) => x.ms)).toFixed(0),
    "cpu ms",
    med(res[d].map((x) => x.cpu)).toFixed(0),
  );
