import type { BrowserOrigins } from "../Config.js"
import { type CorsGrant, type CorsRules, preflight, withCors } from "../Http/Cors.js"

/** The metadata documents: read with GET; MCP clients send their protocol revision with it. */
export const DOCUMENT_CORS: CorsRules = {
  methods: ["GET"],
  requestHeaders: ["Mcp-Protocol-Version"],
  exposedHeaders: []
}

/** Dynamic client registration: a JSON body. */
export const REGISTER_CORS: CorsRules = { methods: ["POST"], requestHeaders: ["Content-Type"], exposedHeaders: [] }

/** /token and /revoke: a form, client credentials in `Authorization: Basic`; a refused client gets a challenge. */
export const CLIENT_CORS: CorsRules = {
  methods: ["POST"],
  requestHeaders: ["Authorization", "Content-Type"],
  exposedHeaders: ["WWW-Authenticate"]
}

/** Everything any of them takes, for any origin: what the endpoints answer when no web origin is configured. */
const OPEN_CORS: CorsRules = {
  methods: ["GET", "POST", "OPTIONS"],
  requestHeaders: ["Authorization", "Content-Type", "Mcp-Protocol-Version"],
  exposedHeaders: ["WWW-Authenticate"]
}

/**
 * The CORS of the OAuth endpoints. Without `MCP_ALLOWED_ORIGINS` they answer any origin, as they always have: tools
 * that sign in from a web page and call `/mcp` through a server of their own (the MCP Inspector) need that. With it,
 * they grant exactly what `/mcp` does: the listed origins (and the service's own), each endpoint its own methods and
 * headers, since a page of another origin could sign in but never call a tool.
 */
export const oauthCors = (browser: BrowserOrigins, allows: (origin: string) => boolean) => {
  const grant: CorsGrant = browser._tag === "None" ? { _tag: "Anyone" } : { _tag: "Origins", allows }
  return (rules: CorsRules) => {
    const granted = grant._tag === "Anyone" ? OPEN_CORS : rules
    return { answer: withCors(grant, granted), preflight: preflight(grant, granted) }
  }
}
