import { INVALID_PARAMS, isJSONRPCRequest, isSpecType, type Transport } from "@modelcontextprotocol/server"

/** The request shapes of the methods our MCP server answers, as the SDK declares them. */
const requestShapes: Readonly<Record<string, (message: unknown) => boolean>> = {
  initialize: isSpecType.InitializeRequest,
  ping: isSpecType.PingRequest,
  "tools/list": isSpecType.ListToolsRequest,
  "tools/call": isSpecType.CallToolRequest
}

/**
 * Answers -32602 Invalid params, on the transport itself, to any request whose params the SDK's own shape for its
 * method refuses, before the server sees it. On the 2025 revisions the SDK parses params inside its dispatch and
 * reports the parse failure as -32603 Internal error with the parser's own report as the message
 * (modelcontextprotocol/typescript-sdk#2284), which tells the client the fault is ours. Call it after
 * `server.connect(transport)`, which installs the handler this wraps; batches are checked message by message, so
 * the valid requests of a batch are still answered.
 */
export const refuseInvalidParams = (transport: Transport): void => {
  const deliver = transport.onmessage
  if (deliver === undefined) return
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const isShaped = requestShapes[message.method]
      if (isShaped !== undefined && !isShaped(message)) {
        void transport
          .send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: INVALID_PARAMS, message: `Invalid params for ${message.method}.` }
          })
          .catch(() => undefined)
        return
      }
    }
    deliver(message, extra)
  }
}
