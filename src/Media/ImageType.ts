/** The image types the service accepts, judged by the file's first bytes (never by its name or declared type). */
export interface ImageType {
  readonly mime: "image/jpeg" | "image/png" | "image/webp" | "image/gif" | "image/avif"
  readonly extension: "jpg" | "png" | "webp" | "gif" | "avif"
}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b)

const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0))

/** AVIF is an ISO-BMFF file whose `ftyp` box names `avif` or `avis` as major or compatible brand. */
const isAvif = (bytes: Uint8Array) => {
  if (!startsWith(bytes, ascii("ftyp"), 4)) return false
  const boxSize = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0
  const end = Math.min(boxSize, bytes.length)
  for (let offset = 8; offset + 4 <= end; offset += 4) {
    if (offset === 12) continue // minor version
    if (startsWith(bytes, ascii("avif"), offset) || startsWith(bytes, ascii("avis"), offset)) return true
  }
  return false
}

/** The type of an image from its first bytes (64 are enough), or undefined for anything else. */
export const sniffImageType = (head: Uint8Array): ImageType | undefined => {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { mime: "image/jpeg", extension: "jpg" }
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mime: "image/png", extension: "png" }
  if (startsWith(head, ascii("GIF87a")) || startsWith(head, ascii("GIF89a")))
    return { mime: "image/gif", extension: "gif" }
  if (startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBP"), 8))
    return { mime: "image/webp", extension: "webp" }
  if (isAvif(head)) return { mime: "image/avif", extension: "avif" }
  return undefined
}

const mimeByExtension: Record<string, ImageType["mime"]> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif"
}

/** Content-Type of a stored media file, from the extension the service gave it. */
export const mimeOfExtension = (extension: string): ImageType["mime"] | undefined =>
  Object.hasOwn(mimeByExtension, extension) ? mimeByExtension[extension] : undefined
