import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The package's directory: the nearest one above this module that holds package.json. The same code runs from
 * src/Sql/ (the tests) and from a chunk in dist/ (the build), at different depths below it.
 */
export const packagePath = (...segments: ReadonlyArray<string>): string => {
  let directory = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(directory, "package.json"))) {
    const parent = dirname(directory)
    if (parent === directory) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`)
    directory = parent
  }
  return join(directory, ...segments)
}
