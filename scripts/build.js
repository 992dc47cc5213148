#!/usr/bin/env node
// Builds the `cbs` program into dist/: one esbuild bundle of src/main.ts (ESM, for Node), split so that a command
// loads only the code it runs (`cbs --help` never loads the HTTP server), and a migrated embedded database that every
// new DATA_DIR starts from as a copy instead of running initdb and the migrations again (dist/embedded-template).
//
// `npm install` and `npm ci` run it (the `prepare` script); `npm start` runs it with --if-stale, which does nothing
// when dist/ is newer than every source file, so an edited source is never started stale.
// Run: node scripts/build.js [--if-stale]
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = join(root, "dist")
const templateDir = join(dist, "embedded-template")
const bundleStamp = join(dist, "build.json")
const templateStamp = join(dist, "embedded-template.json")

/** The newest modification time among `paths` (files, or folders and everything in them). */
const newest = (paths) => {
  let newest = 0
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false })
    if (stat === undefined) return
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
    else newest = Math.max(newest, stat.mtimeMs)
  }
  for (const path of paths) visit(join(root, path))
  return newest
}

/** Whether `stamp` was written after the last change to any of `inputs`. */
const isFresh = (stamp, inputs) => {
  const built = statSync(stamp, { throwIfNoEntry: false })
  return built !== undefined && built.mtimeMs >= newest(inputs)
}

const ifStale = process.argv.includes("--if-stale")
const packages = ["package.json", "package-lock.json", "scripts/build.js"]
const bundleFresh = ifStale && isFresh(bundleStamp, ["src", ...packages])
// The template changes only with the migrations, PGlite (the lock file) or the code that makes it.
const templateFresh =
  ifStale &&
  existsSync(join(templateDir, "PG_VERSION")) &&
  isFresh(templateStamp, ["migrations", "src/Sql/Database.ts", "src/Sql/BuildTemplate.ts", ...packages])
if (bundleFresh && templateFresh) process.exit(0)

const started = Date.now()
if (!bundleFresh) await bundle()
if (!templateFresh) await template()
console.log(`Build done in ${((Date.now() - started) / 1000).toFixed(1)} s`)

async function bundle() {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    absWorkingDir: root,
    // The sanitiser's worker threads load their own entry point (src/Articles/Sanitizer.ts finds it beside its chunk).
    entryPoints: {
      cbs: "src/main.ts",
      "build-template": "src/Sql/BuildTemplate.ts",
      "sanitize-worker": "src/Articles/SanitizeWorker.ts"
    },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: dist,
    // Chunks sit beside the entry points, so that a path relative to a module (`../migrations/`) means the same
    // from dist/ as from src/.
    chunkNames: "chunk-[hash]",
    // PGlite loads its WebAssembly and data files from beside its own modules; pg-native is an optional addon of pg.
    // piscina starts its threads from a script of its own, found beside its modules.
    external: ["@electric-sql/*", "pg-native", "piscina"],
    // jsonc-parser's main entry is a UMD module whose require() of its own parts a bundle cannot follow: its ES
    // module build is the same code.
    alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
    // Bundled CommonJS packages (pg, …) call require() for Node's own modules.
    banner: {
      js: 'import { createRequire as __cbsCreateRequire } from "node:module"; const require = __cbsCreateRequire(import.meta.url);'
    },
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "warning"
  })

  // Written so that a `cbs` starting meanwhile finds either the old build or the new one whole: the chunks have new
  // names (a hash of their contents), and each entry point replaces the old one in one rename. Chunks of earlier builds
  // are removed once they are old enough that no process that started with them can still be loading them.
  mkdirSync(dist, { recursive: true })
  const written = new Set()
  const isChunk = (file) => /[/\\]chunk-[^/\\]*$/.test(file.path)
  const outputs = [...result.outputFiles.filter(isChunk), ...result.outputFiles.filter((file) => !isChunk(file))]
  for (const file of outputs) {
    const draft = `${file.path}.${process.pid}.tmp`
    mkdirSync(dirname(file.path), { recursive: true })
    writeFileSync(draft, file.contents)
    renameSync(draft, file.path)
    written.add(file.path)
  }
  for (const name of readdirSync(dist)) {
    const path = join(dist, name)
    if (!/^chunk-.*\.js$/.test(name) || written.has(path)) continue
    if (Date.now() - statSync(path).mtimeMs > 10 * 60 * 1000) rmSync(path, { force: true })
  }
  // The pages' stylesheets are files of their own (src/Ui/*.css), read from beside the module that serves them.
  for (const name of readdirSync(join(root, "src/Ui")).filter((name) => name.endsWith(".css"))) {
    const draft = join(dist, `${name}.${process.pid}.tmp`)
    copyFileSync(join(root, "src/Ui", name), draft)
    renameSync(draft, join(dist, name))
  }
  await editorBundle(esbuild)
  await cardsBundle(esbuild)
  const bytes = outputs.reduce((sum, file) => sum + file.contents.byteLength, 0)
  writeFileSync(bundleStamp, `${JSON.stringify({ built_at: new Date().toISOString() })}\n`)
  console.log(`Built dist/cbs.js (${(bytes / 1024 / 1024).toFixed(1)} MB in ${outputs.length} files)`)
}

/** How every browser script is built: one minified file per entry point, for the browsers the pages support. */
// A function (hoisted): the build runs from the top of this file, before a constant here would be defined.
function browserScript() {
  return {
    absWorkingDir: root,
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["chrome109", "firefox115", "safari16"],
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "warning"
  }
}

/**
 * The article page's editor (src/Ui/Editor/, ProseMirror): one minified script for browsers, dist/editor.js, which
 * the service serves under a content-hashed address. Its size is held to EDITOR_BUDGET_BYTES gzipped
 * (test/EditorBundle.test.ts checks it).
 */
async function editorBundle(esbuild) {
  const result = await esbuild.build({ ...browserScript(), entryPoints: ["src/Ui/Editor/Editor.ts"] })
  const draft = join(dist, `editor.js.${process.pid}.tmp`)
  writeFileSync(draft, result.outputFiles[0].contents)
  renameSync(draft, join(dist, "editor.js"))
  const { gzipSync } = await import("node:zlib")
  const gzipped = gzipSync(result.outputFiles[0].contents, { level: 9 }).byteLength
  console.log(
    `Built dist/editor.js (${(result.outputFiles[0].contents.byteLength / 1024).toFixed(0)} KB, ${(gzipped / 1024).toFixed(0)} KB gzipped)`
  )
}

/**
 * The assistants' cards (src/Ui/Cards/, MCP Apps views): one minified script per card, dist/cards/<name>.js, which the
 * service writes into the card's HTML (a card is one self-contained document: the extension's frame loads nothing
 * else).
 */
async function cardsBundle(esbuild) {
  const result = await esbuild.build({
    ...browserScript(),
    entryPoints: { "article-change": "src/Ui/Cards/ArticleChangeCard.ts", stats: "src/Ui/Cards/StatsCard.ts" },
    outdir: join(dist, "cards")
  })
  mkdirSync(join(dist, "cards"), { recursive: true })
  for (const file of result.outputFiles) {
    const draft = `${file.path}.${process.pid}.tmp`
    writeFileSync(draft, file.contents)
    renameSync(draft, file.path)
  }
  const sizes = result.outputFiles.map((file) => `${(file.contents.byteLength / 1024).toFixed(0)} KB`).join(", ")
  console.log(`Built dist/cards/ (${result.outputFiles.length} scripts: ${sizes})`)
}

async function template() {
  // The template: initdb and every migration, once, into a fresh directory that then replaces the old template.
  const draftTemplate = `${templateDir}.${process.pid}.tmp`
  const { buildTemplate } = await import(pathToFileURL(join(dist, "build-template.js")).href)
  await buildTemplate(draftTemplate)
  const oldTemplate = `${templateDir}.${process.pid}.old`
  if (existsSync(templateDir)) renameSync(templateDir, oldTemplate)
  renameSync(draftTemplate, templateDir)
  rmSync(oldTemplate, { recursive: true, force: true })
  writeFileSync(templateStamp, `${JSON.stringify({ built_at: new Date().toISOString() })}\n`)
  console.log(`Built ${relative(root, templateDir)} (a migrated embedded database)`)
}
