#!/usr/bin/env node
// The `cbs` command: the compiled program in dist/, which `npm install` builds (scripts/build.js).
try {
  await import("../dist/cbs.js")
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist/cbs.js")) throw error
  process.stderr.write("cbs: the program is not built (dist/cbs.js is missing): run npm install, or npm run build\n")
  process.exitCode = 1
}
