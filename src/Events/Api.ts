import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { AgentTool, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { authenticated } from "../Api/Middleware.js"
import { ValidationError } from "../Domain/Errors.js"
import { EVENT_DAYS, EventFeed, eventTypes } from "../Domain/Event.js"
import { EventsQuery } from "../Domain/Queries.js"

export class EventsApi extends authenticated(
  HttpApiGroup.make("events").add(
    HttpApiEndpoint.get("listEvents", "/events")
      .setUrlParams(EventsQuery)
      .addSuccess(EventFeed)
      .addError(ValidationError.Body)
      .annotate(
        AgentTool,
        readTool({
          name: "list_events",
          title: "List what happened in the account",
          description: `Lists what happened in the account in the last ${EVENT_DAYS} days, oldest first: articles changed (by whom: API, MCP, editor or rewrite, with the reason and the fields changed), articles published, backlinks acquired, backlink status changes. Use it for "what changed since yesterday?": keep next_after from the answer and pass it as after next time to get only what is new (an after older than ${EVENT_DAYS} days or not from this account is refused: start again without it). Narrow with types (comma-separated: ${eventTypes.join(", ")}) or site_id.`
        })
      )
      .annotateContext(
        endpointDescribed(
          "List the account's events",
          `The account's events of the last ${EVENT_DAYS} days, oldest first, at most per_page (default 20, at most 100). Pass the answer's next_after as after to get the events that follow: a client that polls this way loses none and sees none twice (ids increase within an account and commit in order). Filter with types (comma-separated event types; an unknown or empty one: 422 validation_error listing the types) and site_id. An after that is not an event of this account from the last ${EVENT_DAYS} days: 422 validation_error (start again without it). Every key sees its own account's events, admin keys included; read-only keys may read them.`
        )
      )
  )
).annotateContext(
  groupDescribed(
    "Events",
    `What happened in the account: articles changed and published, backlinks acquired and their status changes, kept ${EVENT_DAYS} days. Each event is written in the transaction of the change that caused it.`
  )
) {}
