/**
 * What the three client checks share: the service they call (CBS_BASE_URL, default http://localhost:3000, and
 * CBS_API_KEY, the key `npm start` prints for the demo data), the image they upload, and how they report. Each check
 * changes the first published article of the key's first website (title, body, featured image): run them against a
 * test server.
 */
export const baseUrl = process.env["CBS_BASE_URL"] ?? "http://localhost:3000"
const key = process.env["CBS_API_KEY"]
if (key === undefined || key === "") throw new Error("Set CBS_API_KEY to an API key of the service.")
export const apiKey: string = key

/** A 1×1 PNG. */
export const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64"
)

export const check = (condition: boolean, what: string) => {
  if (!condition) throw new Error(`client check failed: ${what}`)
}

/** Counts the calls a check makes and prints each, with the generator's name. */
export const reporter = (generator: string) => {
  let calls = 0
  return {
    ok: (status: number, what: string, headers: Headers) => {
      calls++
      check(headers.get("x-request-id") !== null, `${what} has X-Request-Id`)
      process.stdout.write(`ok ${status} ${what} (${generator})\n`)
    },
    done: () =>
      process.stdout.write(`client check (${generator}): ${calls} calls, every endpoint as the document says\n`)
  }
}

/** The uploaded image is served where the answer says, byte for byte. */
export const checkServedImage = async (imageUrl: string | null) => {
  if (imageUrl === null) throw new Error("the upload set no featured_image_url")
  check(new URL(imageUrl).pathname.startsWith("/media/"), "the uploaded image is served under /media/")
  const served = await fetch(imageUrl)
  check(Buffer.from(await served.arrayBuffer()).equals(PIXEL), "the served image is the uploaded file, byte for byte")
}

export const marker = () => `Checked by the generated client at ${new Date().toISOString()}.`
