import type { BrowserOrigins } from "../Config.js"
import { type CorsRules, preflight, withCors } from "../Http/Cors.js"
import { originAllowed } from "../Http/Origins.js"

/**
 * What a web page may do at `/mcp`: POST with its bearer token and the protocol's headers (a stateless endpoint has
 * no session id to send, and no stream to resume), and read the challenge, the limits and the request id.
 */
const MCP_CORS: CorsRules = {
  methods: ["POST"],
  requestHeaders: ["Authorization", "Content-Type", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"],
  exposedHeaders: [
    "WWW-Authenticate",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
    "Retry-After",
    "X-Request-Id"
  ]
}

/**
 * The web pages `/mcp` answers: the service's own and those `MCP_ALLOWED_ORIGINS` names (browser-based
 * assistants). `allows` is the Origin check every POST passes; `answer` and `preflight` tell a browser exactly that,
 * naming the allowed origin (with `Vary: Origin`), and nothing to another.
 */
export const mcpBrowsers = (base: string, browser: BrowserOrigins) => {
  const allows = originAllowed(base, browser)
  const grant = { _tag: "Origins", allows } as const
  return { allows, answer: withCors(grant, MCP_CORS), preflight: preflight(grant, MCP_CORS) }
}
