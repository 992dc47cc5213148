import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema
} from "@modelcontextprotocol/sdk/types.js"

/** The request schemas of the methods our MCP server answers, as the SDK declares them. */
const requestSchemas: Readonly<Record<string, { readonly safeParse: (u: unknown) => { readonly success: boolean } }>> =
  {
    initialize: InitializeRequestSchema,
    ping: PingRequestSchema,
    "tools/list": ListToolsRequestSchema,
    "tools/call": CallToolRequestSchema
  }

/**
 * Answers -32602 Invalid params, on the transport itself, to any request whose params the SDK's own schema for its
 * method refuses, before the server sees it. The SDK parses params inside its dispatch and reports the parse failure
 * as -32603 Internal error (modelcontextprotocol/typescript-sdk#2284), which tells the client the fault is ours.
 * Call it after `server.connect(transport)`, which installs the handler this wraps; batches are checked message by
 * message, so the valid requests of a batch are still answered.
 */
export const refuseInvalidParams = (transport: Transport): void => {
  const deliver = transport.onmessage
  if (deliver === undefined) return
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const schema = requestSchemas[message.method]
      if (schema !== undefined && !schema.safeParse(message).success) {
        void transport
          .send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}.` }
          })
          .catch(() => undefined)
        return
      }
    }
    deliver(message, extra)
  }
}
