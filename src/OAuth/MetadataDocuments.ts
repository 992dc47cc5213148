import { Clock, Data, Effect, Either, Option } from "effect"
import { guardedGet } from "../Http/OutboundFetch.js"
import { type ClientRow, OAuthClientsRepo } from "./ClientsRepo.js"
import { parseRegistration } from "./Registration.js"

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, recommended by MCP for client
 * registration): a client whose `client_id` is an HTTPS URL is registered by fetching that URL, which answers the
 * client's metadata as JSON. The fetch is guarded (see OutboundFetch: public addresses only, redirects checked
 * again, 64 KiB, 5 s); the document is kept for what its Cache-Control allows, at least a minute and at most a day
 * (five minutes when it says nothing), and the client is kept as a registered client under its URL so that its
 * grants and tokens refer to it like any other's.
 */

/** Why a metadata-document client cannot be used, in words for the authorization page and the token endpoint. */
export class ClientDocumentRefused extends Data.TaggedError("ClientDocumentRefused")<{ readonly message: string }> {}

const MAX_DOCUMENT_BYTES = 64 * 1024
const FETCH_TIMEOUT_MS = 5_000
const MAX_REDIRECTS = 3
const MIN_LIFE_MS = 60_000
const DEFAULT_LIFE_MS = 5 * 60_000
const MAX_LIFE_MS = 24 * 60 * 60_000
/** The most documents kept at once; the oldest go first. */
const MAX_CACHED = 1_000

/** Whether a client id is the URL of a metadata document rather than an id this service issued. */
export const isMetadataDocumentUrl = (clientId: string) => clientId.startsWith("https://")

/** What makes a client id URL unusable (the draft's §3 rules), or undefined when it is usable. */
export const clientIdUrlProblem = (clientId: string): string | undefined => {
  if (clientId.length > 2_000) return "it is longer than 2,000 characters"
  if (!URL.canParse(clientId)) return "it is not a URL"
  const url = new URL(clientId)
  if (url.protocol !== "https:") return "it is not an https:// URL"
  if (url.username !== "" || url.password !== "") return "it contains a user name or password"
  if (clientId.includes("#")) return "it contains a fragment (#)"
  // The path as written: the URL parser would have resolved dot segments away.
  const path = clientId
    .slice("https://".length)
    .replace(/^[^/?#]*/, "")
    .replace(/[?#].*$/, "")
  if (path === "" || path === "/") return "it has no path (the document's address must have one)"
  if (path.split("/").some((segment) => segment === "." || segment === "..")) return "its path has . or .. segments"
  return undefined
}

/** How long a document may be kept, from its Cache-Control (max-age), within the bounds. */
const lifeOf = (cacheControl: string | undefined) => {
  const directives = (cacheControl ?? "").toLowerCase()
  if (/no-store|no-cache/.test(directives)) return MIN_LIFE_MS
  const maxAge = /max-age=(\d+)/.exec(directives)
  const asked = maxAge === null ? DEFAULT_LIFE_MS : Number(maxAge[1]) * 1000
  return Math.min(MAX_LIFE_MS, Math.max(MIN_LIFE_MS, asked))
}

export class ClientMetadataDocuments extends Effect.Service<ClientMetadataDocuments>()("OAuth/MetadataDocuments", {
  dependencies: [OAuthClientsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OAuthClientsRepo
    const cache = new Map<string, { readonly client: ClientRow; readonly until: number }>()

    const refused = (url: string, why: string) =>
      new ClientDocumentRefused({ message: `The application's metadata document ${url} cannot be used: ${why}.` })

    /** Fetches, checks and registers the client the document at `url` describes. */
    const fetchClient = (url: string) =>
      Effect.gen(function* () {
        const answer = yield* guardedGet(url, {
          maxBytes: MAX_DOCUMENT_BYTES,
          timeoutMs: FETCH_TIMEOUT_MS,
          maxRedirects: MAX_REDIRECTS
        }).pipe(Effect.mapError((error) => refused(url, error.message)))
        if (answer.status !== 200) return yield* refused(url, `fetching it answered HTTP ${answer.status}`)
        const document = Either.try(() => JSON.parse(answer.body) as unknown)
        if (Either.isLeft(document) || typeof document.right !== "object" || document.right === null) {
          return yield* refused(url, "it is not a JSON object")
        }
        const fields = document.right as Record<string, unknown>
        if (fields["client_id"] !== url) {
          return yield* refused(url, "its client_id is not exactly the address it was fetched from")
        }
        if ("client_secret" in fields || "client_secret_expires_at" in fields) {
          return yield* refused(url, "it contains a client secret, which a public document must never hold")
        }
        const method = fields["token_endpoint_auth_method"] ?? "none"
        if (method !== "none") {
          return yield* refused(url, `token_endpoint_auth_method must be "none" (it is ${JSON.stringify(method)})`)
        }
        const metadata = yield* Either.mapLeft(
          parseRegistration({ ...fields, token_endpoint_auth_method: "none" }),
          (error) => refused(url, error.description)
        )
        const now = yield* Clock.currentTimeMillis
        const client = yield* repo.upsert({
          client_id: url,
          client_name: metadata.client_name,
          redirect_uris: metadata.redirect_uris,
          grant_types: metadata.grant_types,
          response_types: metadata.response_types,
          token_endpoint_auth_method: "none",
          client_secret_hash: null,
          created_at: new Date(now).toISOString()
        })
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string)
        cache.set(url, { client, until: now + lifeOf(answer.headers["cache-control"]) })
        return client
      })

    /**
     * The client a metadata-document URL stands for: from the cache while the document's life lasts, else fetched
     * again (a document that can no longer be fetched is not used).
     */
    const resolve = Effect.fn("ClientMetadataDocuments.resolve")(function* (url: string) {
      const problem = clientIdUrlProblem(url)
      if (problem !== undefined) return yield* refused(url, problem)
      const now = yield* Clock.currentTimeMillis
      const cached = cache.get(url)
      if (cached !== undefined && cached.until > now) return Option.some(cached.client)
      cache.delete(url)
      return Option.some(yield* fetchClient(url))
    })

    return { resolve }
  })
}) {}
