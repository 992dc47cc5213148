import { createHash } from "node:crypto"
import { deflateSync } from "node:zlib"

/** The size of a demo featured image: the 1.91:1 of link previews, small enough to seed in a moment. */
const WIDTH = 640
const HEIGHT = 336

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

const crc32 = (bytes: Uint8Array) => {
  let c = 0xffffffff
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** A PNG chunk: length, type, data and the CRC of type and data. */
const chunk = (type: string, data: Uint8Array) => {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  out.set(new TextEncoder().encode(type), 4)
  out.set(data, 8)
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)))
  return out
}

/** Two colours of the same hue, from the seed: a dark and a light one, for a diagonal gradient. */
const coloursOf = (seed: string) => {
  const [hue] = createHash("sha256").update(seed).digest()
  const h = ((hue ?? 0) / 256) * 6
  const rgb = (lightness: number, saturation: number) => {
    const c = (1 - Math.abs(2 * lightness - 1)) * saturation
    const x = c * (1 - Math.abs((h % 2) - 1))
    const m = lightness - c / 2
    const [r, g, b] = [
      [c, x, 0],
      [x, c, 0],
      [0, c, x],
      [0, x, c],
      [x, 0, c],
      [c, 0, x]
    ][Math.floor(h) % 6]!
    return [r!, g!, b!].map((v) => Math.round((v + m) * 255)) as [number, number, number]
  }
  return [rgb(0.32, 0.55), rgb(0.78, 0.6)] as const
}

/**
 * A featured image for a demo article: a PNG with a diagonal gradient in colours drawn from `seed` (the article's
 * slug), the same bytes for the same seed. The demo's articles show real images, stored and served by the service
 * like uploads, rather than addresses that resolve nowhere.
 */
export const demoImage = (seed: string): Uint8Array => {
  const [from, to] = coloursOf(seed)
  const stride = 1 + WIDTH * 3
  const raw = new Uint8Array(stride * HEIGHT)
  for (let y = 0; y < HEIGHT; y++) {
    raw[y * stride] = 0
    for (let x = 0; x < WIDTH; x++) {
      const t = (x + y) / (WIDTH + HEIGHT - 2)
      for (let channel = 0; channel < 3; channel++) {
        raw[y * stride + 1 + x * 3 + channel] = Math.round(from[channel]! + (to[channel]! - from[channel]!) * t)
      }
    }
  }
  const header = new Uint8Array(13)
  const view = new DataView(header.buffer)
  view.setUint32(0, WIDTH)
  view.setUint32(4, HEIGHT)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits a channel, RGB, deflate, no filter per row, no interlace
  const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const parts = [
    signature,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", new Uint8Array())
  ]
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
