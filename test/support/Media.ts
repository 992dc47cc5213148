import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "@effect/vitest"

/** A real, valid 1×1 PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

/**
 * Uploaded featured images go to a fresh directory of this run, not into the repository; removed after the file's
 * tests. Call it at the top of a test file: MEDIA_DIR is read when the server's layer is built.
 */
export const freshMediaDir = (prefix: string) => {
  const mediaDir = mkdtempSync(join(tmpdir(), prefix))
  process.env["MEDIA_DIR"] = mediaDir
  afterAll(() => rmSync(mediaDir, { recursive: true, force: true }))
  return mediaDir
}
