import { Config, ConfigError, Either, Option, Redacted } from "effect"

/**
 * The web origins whose pages may call `/mcp` with a bearer token (browser-based assistants), from
 * `MCP_ALLOWED_ORIGINS`: none (unset), the origins listed, or any (`*`).
 */
export type BrowserOrigins =
  | { readonly _tag: "None" }
  | { readonly _tag: "Listed"; readonly origins: ReadonlyArray<string> }
  | { readonly _tag: "Any" }

/** One listed origin as browsers send it (`https://app.example.com`, lower case, no default port), or why not. */
const originOf = (entry: string): Either.Either<string, string> => {
  const url = URL.canParse(entry) ? new URL(entry) : undefined
  const bare =
    url !== undefined &&
    (url.protocol === "https:" || url.protocol === "http:") &&
    url.username === "" &&
    url.password === "" &&
    url.pathname === "/" &&
    !entry.endsWith("?") &&
    url.search === "" &&
    url.hash === ""
  return bare ? Either.right(url.origin) : Either.left(`${entry} is not a web origin (scheme://host[:port], no path)`)
}

/**
 * `MCP_ALLOWED_ORIGINS`: comma-separated origins, or `*` alone. `*` lets any web page call with a token, which only
 * an https service may allow (over plain http a page of any origin could be answered on the network's say-so).
 */
const McpAllowedOrigins = Config.all({
  listed: Config.option(Config.string("MCP_ALLOWED_ORIGINS")),
  base: Config.option(Config.url("PUBLIC_BASE_URL"))
}).pipe(
  Config.mapOrFail(({ listed, base }): Either.Either<BrowserOrigins, ConfigError.ConfigError> => {
    const entries = Option.getOrElse(listed, () => "")
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "")
    const invalid = (message: string) => Either.left(ConfigError.InvalidData(["MCP_ALLOWED_ORIGINS"], message))
    if (entries.length === 0) return Either.right({ _tag: "None" })
    if (entries.includes("*")) {
      if (entries.length > 1) return invalid("* stands alone (any origin), without other origins beside it")
      const https = Option.exists(base, (url) => url.protocol === "https:")
      return https
        ? Either.right({ _tag: "Any" })
        : invalid("* (any web origin) is allowed only when PUBLIC_BASE_URL is an https address; list the origins")
    }
    const origins = entries.map(originOf)
    const wrong = origins.find(Either.isLeft)
    if (wrong !== undefined) return invalid(wrong.left)
    return Either.right({ _tag: "Listed", origins: origins.filter(Either.isRight).map((origin) => origin.right) })
  })
)

/**
 * `SMTP_URL`: the SMTP server the password reset mail goes through (`smtp://user:password@host:587`, or `smtps://`
 * for TLS from the start); unset, there is no reset by mail. Checked at start, so that a typo is not found by the
 * first person who forgot a password.
 */
const SmtpUrl = Config.option(Config.redacted("SMTP_URL")).pipe(
  Config.mapOrFail((url) => {
    const parsed = Option.map(url, (value) => {
      const text = Redacted.value(value)
      return URL.canParse(text) ? new URL(text) : null
    })
    const valid = Option.match(parsed, {
      onNone: () => true,
      onSome: (at) => at !== null && ["smtp:", "smtps:"].includes(at.protocol) && at.hostname !== ""
    })
    return valid
      ? Either.right(url)
      : Either.left(ConfigError.InvalidData(["SMTP_URL"], "must be an smtp:// or smtps:// address with a host"))
  })
)

/**
 * Every setting of the service, read once from the environment. Nothing else reads `process.env`.
 */
export const AppConfig = Config.all({
  /** PostgreSQL connection string; without it an embedded PostgreSQL keeps its data in `dataDir`. */
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  /** Where the embedded database (and, later, uploaded media) live. */
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  /** The address clients use to reach the service; defaults to http://localhost:PORT. */
  publicBaseUrl: Config.option(Config.url("PUBLIC_BASE_URL")),
  /** Where uploaded images are kept; defaults to DATA_DIR/media. */
  mediaDir: Config.option(Config.string("MEDIA_DIR")),
  /** When false, `cbs serve` does not import the demo data set into an empty database. */
  seedDemo: Config.boolean("SEED_DEMO").pipe(Config.withDefault(true)),
  /** Requests per credential per minute (raise it only for load tests). */
  requestsPerMinute: Config.integer("REQUESTS_PER_MINUTE").pipe(Config.withDefault(60)),
  /** Successful article changes per account per UTC day. */
  editsPerDay: Config.integer("EDITS_PER_DAY").pipe(Config.withDefault(200)),
  /** Days the audit log keeps calls; `cbs audit prune` deletes older ones. */
  auditRetentionDays: Config.integer("AUDIT_RETENTION_DAYS").pipe(Config.withDefault(90)),
  /** Longest a request may run before it is answered with an error. */
  requestTimeoutSeconds: Config.integer("REQUEST_TIMEOUT_SECONDS").pipe(Config.withDefault(30)),
  /**
   * Longest a request body may pause (no bytes arriving) before the request is answered 408 `request_timeout` and its
   * connection closed.
   */
  bodyStallSeconds: Config.integer("BODY_STALL_SECONDS").pipe(Config.withDefault(10)),
  /**
   * Password checks (scrypt, at sign-in) that may run at once; a few more wait, the rest are answered 503. By default
   * one less than libuv's thread pool (UV_THREADPOOL_SIZE, 4 unless set), which scrypt shares with file reads and DNS.
   */
  passwordChecks: Config.all([
    Config.option(Config.integer("PASSWORD_CHECKS")),
    Config.integer("UV_THREADPOOL_SIZE").pipe(Config.withDefault(4))
  ]).pipe(
    Config.map(([checks, threads]) =>
      Math.max(
        1,
        Option.getOrElse(checks, () => threads - 1)
      )
    )
  ),
  /** How long in-flight requests may run after SIGTERM before the process exits. */
  shutdownTimeoutSeconds: Config.integer("SHUTDOWN_TIMEOUT_SECONDS").pipe(Config.withDefault(10)),
  /** Lifetime of the OAuth access tokens MCP clients get; they refresh them after that. */
  oauthAccessTokenSeconds: Config.integer("OAUTH_ACCESS_TOKEN_SECONDS").pipe(Config.withDefault(3600)),
  /** The web origins whose pages may call `/mcp` with a bearer token (browser-based assistants). */
  mcpAllowedOrigins: McpAllowedOrigins,
  /** The SMTP server of the password reset mail; without it, the reset page says to ask the operator. */
  smtpUrl: SmtpUrl,
  /** The reset mail's From address; defaults to no-reply at the host of the public base URL. */
  smtpFrom: Config.option(Config.string("SMTP_FROM")),
  /** `off`: this instance serves requests only and runs no background work (webhook deliveries, upkeep). */
  workers: Config.literal("on", "off")("WORKERS").pipe(Config.withDefault("on" as const)),
  /** `off`: this instance runs no link checks in the background (`cbs backlinks check` still checks on demand). */
  linkChecks: Config.literal("on", "off")("LINK_CHECKS").pipe(Config.withDefault("on" as const)),
  /**
   * Development and tests only: outbound fetches (webhooks, link checks, client metadata documents) may reach loopback
   * addresses over http. The server warns at start when it is set.
   */
  outboundAllowLoopback: Config.boolean("OUTBOUND_ALLOW_LOOPBACK").pipe(Config.withDefault(false))
})

export type AppConfig = Config.Config.Success<typeof AppConfig>

/** How the process writes: log lines (JSON for collectors, or pretty for people) and colour. */
export const OutputConfig = Config.all({
  /**
   * `json`: one JSON object a line (the default when the output is not a terminal); `short`: one short line per
   * request for a person at a terminal (the default there); `pretty`: every field, for a person.
   */
  logFormat: Config.option(Config.literal("json", "short", "pretty")("LOG_FORMAT")),
  /** Set and not empty: no ANSI colour codes (https://no-color.org). */
  noColor: Config.string("NO_COLOR").pipe(
    Config.withDefault(""),
    Config.map((value) => value !== "")
  )
})

export type OutputConfig = Config.Config.Success<typeof OutputConfig>

/** Tracing (see Server/Tracing.ts): the OpenTelemetry SDK's own settings, read the way it reads them. */
export const TracingConfig = Config.all({
  /** The collector's OTLP/HTTP base address; traces go to its `/v1/traces`. Unset (and no traces endpoint): off. */
  endpoint: Config.option(Config.url("OTEL_EXPORTER_OTLP_ENDPOINT")),
  /** The collector's traces address itself, used as given. */
  tracesEndpoint: Config.option(Config.url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("content-backlink-service")),
  /** How often finished spans are sent, in ms. */
  exportDelayMs: Config.integer("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5000))
})

export type TracingConfig = Config.Config.Success<typeof TracingConfig>

/** Where traces go, if anywhere: the traces endpoint, or the endpoint's `/v1/traces`. */
export const tracesEndpoint = (config: TracingConfig): Option.Option<string> =>
  Option.orElse(
    Option.map(config.tracesEndpoint, (url) => url.toString()),
    () => Option.map(config.endpoint, (url) => `${url.toString().replace(/\/+$/, "")}/v1/traces`)
  )

/** A password for `cbs account create` given in the environment rather than on the command line. */
export const PasswordFromEnvironment = Config.option(Config.redacted("CBS_PASSWORD"))

/** The public base URL without a trailing slash. */
export const publicBaseUrl = (config: AppConfig, port: number): string =>
  Option.match(config.publicBaseUrl, {
    onNone: () => `http://localhost:${port}`,
    onSome: (url) => url.toString().replace(/\/+$/, "")
  })

/** The media directory: MEDIA_DIR, or DATA_DIR/media. */
export const mediaDirectory = (config: AppConfig): string =>
  Option.getOrElse(config.mediaDir, () => `${config.dataDir.replace(/\/+$/, "")}/media`)
