// Validates Kubernetes manifests against the Kubernetes API schemas: a batch/v1 Job through
// kubernetes-models (the API's OpenAPI schemas, compiled); a LeaderWorkerSet's own fields
// through ajv and leaderworkerset-v1.schema.json, its leader and worker pod templates through
// kubernetes-models' PodTemplateSpec. YAML is read as YAML 1.1, as kubectl reads it, so an
// unquoted `on` or `0.85` where a string belongs is a boolean or a number, and an error.
// Usage: node validate.mjs FILE...   (exit 1 naming the file and the field on any error)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import Ajv from "ajv";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PodTemplateSpec } from "kubernetes-models/v1/PodTemplateSpec";

const here = dirname(fileURLToPath(import.meta.url));
const schemaDir = process.env.K8S_SCHEMA_DIR || here;
const lwsSchema = JSON.parse(readFileSync(join(schemaDir, "leaderworkerset-v1.schema.json"), "utf8"));
const validateLws = new Ajv({ allErrors: true, strict: false }).compile(lwsSchema);

function check(what, fn) {
  try {
    fn();
    return [];
  } catch (e) {
    return [`${what}: ${e.message}`];
  }
}

let failed = 0;
for (const file of process.argv.slice(2)) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"), { version: "1.1" });
  for (const doc of docs) {
    if (doc.errors.length) {
      console.error(`${file}: not YAML: ${doc.errors[0].message}`);
      failed++;
      continue;
    }
    const obj = doc.toJS();
    let errors = [];
    if (obj?.apiVersion === "batch/v1" && obj?.kind === "Job") {
      errors = check("Job", () => new Job(obj).validate());
    } else if (obj?.kind === "LeaderWorkerSet") {
      if (!validateLws(obj))
        errors = validateLws.errors.map((e) => `LeaderWorkerSet${e.instancePath}: ${e.message}`);
      const t = obj?.spec?.leaderWorkerTemplate ?? {};
      for (const key of ["leaderTemplate", "workerTemplate"])
        if (t[key] !== undefined)
          errors.push(...check(`spec.leaderWorkerTemplate.${key}`, () => new PodTemplateSpec(t[key]).validate()));
    } else {
      errors = [`neither a batch/v1 Job nor a LeaderWorkerSet (${obj?.apiVersion} ${obj?.kind})`];
    }
    for (const e of errors) console.error(`${file}: ${e}`);
    if (errors.length) failed++;
    else console.log(`${file}: valid ${obj.kind}`);
  }
}
process.exit(failed ? 1 : 0);
