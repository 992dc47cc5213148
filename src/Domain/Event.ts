import { Schema } from "effect"
import { articleFields } from "./Article.js"
import { Backlink, BacklinkStatus } from "./Backlink.js"
import { RevisionOrigin } from "./Credential.js"
import { Timestamp } from "./Dates.js"
import { SiteId } from "./Ids.js"
import { LostReason } from "./LinkCheck.js"
import { ContentFieldName } from "./Revision.js"

/** What can happen in an account, as events and webhooks name it. */
export const EventType = Schema.Literal(
  "article.changed",
  "article.published",
  "backlink.acquired",
  "backlink.status_changed"
).annotations({
  description:
    "article.changed (a saved change), article.published (an article became published), backlink.acquired (a new backlink was recorded) or backlink.status_changed (a backlink's status changed)."
})
export type EventType = typeof EventType.Type
export const eventTypes: ReadonlyArray<EventType> = EventType.literals

const EVENT_ID = /^evt_[1-9][0-9]{0,15}$/

/**
 * The annotations of an event id described for its place (a cursor, say): the description, and the JSON Schema that
 * the OpenAPI document and the tools show, which carries it too (the schema's own description does not reach it).
 */
export const describedEventId = (description: string) => ({
  description,
  jsonSchema: { type: "string", pattern: EVENT_ID.source, examples: ["evt_42"], description }
})

/** An event's id as the interface writes it, `evt_` and a number, read as that number. */
export const EventId = Schema.transform(
  Schema.String.pipe(Schema.pattern(EVENT_ID, { message: () => "must be an event id such as evt_42" })),
  Schema.Number,
  { strict: true, decode: (text) => Number(text.slice(4)), encode: (id) => `evt_${id}` }
).annotations(describedEventId("Event id: evt_ and a number, increasing within an account."))

const siteOfBacklink = SiteId.annotations({ description: "Id of the website the backlink was acquired for." })

const event = <T extends EventType, F extends Schema.Struct.Fields>(type: T, data: F, description: string) =>
  Schema.Struct({
    id: EventId,
    type: Schema.Literal(type).annotations({ description: "What happened." }),
    created_at: Timestamp.annotations({ description: "When it happened, RFC 3339 UTC." }),
    data: Schema.Struct(data).annotations({ description })
  }).annotations({ identifier: `Event_${type.replace(".", "_")}`, description: `A ${type} event.` })

export const ArticleChangedEvent = event(
  "article.changed",
  {
    ...articleFields,
    origin: RevisionOrigin.annotations({ description: "Where the change came from: API, MCP, editor or rewrite." }),
    reason: Schema.NullOr(Schema.String).annotations({ description: "The reason given with the change, if any." }),
    changed: Schema.Array(ContentFieldName).annotations({
      description: "The content fields that differ from the revision before."
    })
  },
  "The article as it was after the change, without its body; revision is the revision the change saved."
)

export const ArticlePublishedEvent = event(
  "article.published",
  articleFields,
  "The article as it was when it became published, without its body."
)

export const BacklinkAcquiredEvent = event(
  "backlink.acquired",
  { ...Backlink.fields, site_id: siteOfBacklink },
  "The backlink as it was recorded."
)

export const BacklinkStatusChangedEvent = event(
  "backlink.status_changed",
  {
    ...Backlink.fields,
    site_id: siteOfBacklink,
    previous_status: Schema.NullOr(BacklinkStatus).annotations({ description: "The status before the change." }),
    previous_lost_reason: Schema.NullOr(LostReason).annotations({
      description: "The lost reason before the change; null if the backlink was not lost."
    })
  },
  "The backlink with its new status, and the status and lost reason it had before."
)

export const Event = Schema.Union(
  ArticleChangedEvent,
  ArticlePublishedEvent,
  BacklinkAcquiredEvent,
  BacklinkStatusChangedEvent
).annotations({ identifier: "Event", description: "Something that happened in the account." })
export type Event = typeof Event.Type

/** How long events are kept, and so how far back the feed reaches, in days. */
export const EVENT_DAYS = 30

/** The feed's answer: a page of events, oldest first, and the cursor to pass as `after` next time. */
export const EventFeed = Schema.Struct({
  data: Schema.Array(Event).annotations({
    description: `The account's events after the cursor, oldest first (at most per_page), from the last ${EVENT_DAYS} days.`
  }),
  next_after: Schema.NullOr(EventId).annotations({
    description:
      "Pass it as after next time to get what happened since: the last event of data, or the after given when data is empty. Null only when data is empty and no after was given."
  })
}).annotations({ identifier: "EventFeed", description: "A page of the event feed." })
export type EventFeed = typeof EventFeed.Type
