import { Schema } from "effect"

/** The import file was refused as a whole; `path` (e.g. `accounts[0].sites[1].url`) names the first bad field. */
export class ImportRefused extends Schema.TaggedError<ImportRefused>()("ImportRefused", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return this.path === "" ? this.reason : `${this.path}: ${this.reason}`
  }
}
