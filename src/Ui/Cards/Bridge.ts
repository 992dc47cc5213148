import type {
  McpUiHostCapabilities,
  McpUiHostContext,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiSizeChangedNotification,
  McpUiToolInputNotification,
  McpUiToolResultNotification
} from "@modelcontextprotocol/ext-apps"
import type { SafeHtml } from "../Markup.js"

/**
 * The card's side of the MCP Apps extension (`io.modelcontextprotocol/ui`): JSON-RPC over `postMessage` with the
 * host that framed it. The card asks to initialize, says it is ready, then draws what the host sends it (the tool's
 * arguments and its result), says how tall it is, and may ask the host to call one of this service's tools. Only
 * messages from the framing window are read.
 *
 * Written out rather than taken from the extension's `App` class: that class brings a JSON-RPC stack and a schema
 * library (650 KB minified) into every card for the six messages a card uses; the tests drive these cards with the
 * extension's own host bridge (`AppBridge`), so both sides of the protocol are the extension's reading of it.
 */

/** The extension's revision this card speaks. */
const PROTOCOL_VERSION = "2026-01-26"

type ToolResult = McpUiToolResultNotification["params"]
type ToolArguments = NonNullable<McpUiToolInputNotification["params"]["arguments"]>

/** What the card knows so far: the tool's arguments and its result, as the host sent them. */
export interface CardState {
  readonly input: ToolArguments | undefined
  readonly result: ToolResult | undefined
}

/** What a card can ask of the host while it draws. */
export interface Host {
  readonly capabilities: McpUiHostCapabilities
  /** The tool whose result the card shows, when the host says (its context's `toolInfo`). */
  readonly toolName: string | undefined
  /** Calls one of this service's tools through the host (when the host offers `serverTools`). */
  readonly callTool: (name: string, args: Record<string, unknown>) => Promise<ToolResult>
}

interface Message {
  readonly jsonrpc?: string
  readonly id?: number | string
  readonly method?: string
  readonly params?: unknown
  readonly result?: unknown
  readonly error?: { readonly message?: string }
}

/**
 * Starts a card: `render` draws the card for the state so far (and may ask the host for more through `host`); the card
 * is redrawn on every tool input and result.
 */
export const startCard = (options: {
  readonly name: string
  readonly render: (state: CardState, host: Host) => SafeHtml | Promise<SafeHtml>
}): void => {
  const root = document.getElementById("card")
  if (root === null) return
  const parent = window.parent
  const send = (message: object) => parent.postMessage({ jsonrpc: "2.0", ...message }, "*")

  let nextId = 1
  const pending = new Map<number | string, { resolve: (u: unknown) => void; reject: (e: Error) => void }>()
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      send({ id, method, params })
    })

  let capabilities: McpUiHostCapabilities = {}
  let toolName: string | undefined
  let state: CardState = { input: undefined, result: undefined }
  const host: Host = {
    get capabilities() {
      return capabilities
    },
    get toolName() {
      return toolName
    },
    callTool: (name, args) => request("tools/call", { name, arguments: args }) as Promise<ToolResult>
  }

  let drawn = 0
  const draw = async () => {
    const turn = ++drawn
    const markup = await options.render(state, host)
    // A later state may have been drawn meanwhile; only the newest is shown.
    if (turn !== drawn) return
    root.innerHTML = markup.value
    // An image the frame may not load (an address on another site, which the card's policy refuses) is left out; its
    // address stays written beside it.
    for (const image of root.querySelectorAll("img")) {
      image.addEventListener("error", () => image.remove(), { once: true })
    }
  }

  const applyContext = (context: McpUiHostContext | undefined) => {
    toolName = context?.toolInfo?.tool.name ?? toolName
    if (context?.theme !== undefined) document.documentElement.style.colorScheme = context.theme
    const font = context?.styles?.variables?.["--font-sans"]
    if (font !== undefined) document.documentElement.style.setProperty("--font", font)
  }

  window.addEventListener("message", (event: MessageEvent<Message>) => {
    if (event.source !== parent) return
    const message = event.data
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") return
    if (message.method === undefined) {
      const waiting = message.id === undefined ? undefined : pending.get(message.id)
      if (waiting === undefined) return
      pending.delete(message.id!)
      if (message.error !== undefined) waiting.reject(new Error(message.error.message ?? "The host refused."))
      else waiting.resolve(message.result)
      return
    }
    if (message.id !== undefined) {
      // Requests from the host: a ping or the teardown before the card is removed; nothing else is offered.
      if (message.method === "ping" || message.method === "ui/resource-teardown") send({ id: message.id, result: {} })
      else send({ id: message.id, error: { code: -32601, message: `${message.method} is not offered by this card.` } })
      return
    }
    switch (message.method) {
      case "ui/notifications/tool-input":
        state = { ...state, input: (message.params as McpUiToolInputNotification["params"]).arguments ?? {} }
        void draw()
        break
      case "ui/notifications/tool-result":
        state = { ...state, result: message.params as ToolResult }
        void draw()
        break
      case "ui/notifications/host-context-changed":
        applyContext(message.params as McpUiHostContext)
        break
    }
  })

  // The host sizes the frame to the card: say the card's height whenever it changes.
  let height = 0
  new ResizeObserver(() => {
    const now = Math.ceil(document.documentElement.getBoundingClientRect().height)
    if (now === height) return
    height = now
    send({
      method: "ui/notifications/size-changed",
      params: { height } satisfies McpUiSizeChangedNotification["params"]
    })
  }).observe(document.documentElement)

  const initialize: McpUiInitializeRequest["params"] = {
    appInfo: { name: `content-backlink-service/${options.name}`, version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline"] },
    protocolVersion: PROTOCOL_VERSION
  }
  void request("ui/initialize", initialize).then((answer) => {
    const result = answer as McpUiInitializeResult
    capabilities = result.hostCapabilities ?? {}
    applyContext(result.hostContext)
    send({ method: "ui/notifications/initialized", params: {} })
  })
}

/** The structured content of a tool result, or undefined for an error or a result without one. */
export const structured = (result: ToolResult | undefined): Record<string, unknown> | undefined =>
  result === undefined || result.isError === true
    ? undefined
    : (result.structuredContent as Record<string, unknown> | undefined)

/** A tool error's body (`{ error, message, … }`, the text content's JSON), or undefined when the call succeeded. */
export const toolError = (
  result: ToolResult | undefined
): { readonly error: string; readonly message: string } | undefined => {
  if (result?.isError !== true) return undefined
  const text = result.content.find((block) => block.type === "text")
  try {
    const body = JSON.parse(text?.type === "text" ? text.text : "{}") as { error?: unknown; message?: unknown }
    return { error: String(body.error ?? "error"), message: String(body.message ?? "The call failed.") }
  } catch {
    return { error: "error", message: text?.type === "text" ? text.text : "The call failed." }
  }
}
