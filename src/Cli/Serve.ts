import { Command } from "@effect/cli"
import { Effect } from "effect"
import { jsonOption, load } from "./Output.js"
import { portOption } from "./Values.js"

export const serveCommand = Command.make(
  "serve",
  {
    port: portOption("Port to listen on (default: PORT, else 3000; 0 picks a free port)."),
    json: jsonOption
  },
  (args) => load(() => import("./Run/Serve.js")).pipe(Effect.flatMap((run) => run.serve(args)))
).pipe(
  Command.withDescription("Run the HTTP server (API, MCP, web pages); imports the demo data into an empty database.")
)
