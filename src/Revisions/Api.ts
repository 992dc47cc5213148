import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { AgentTool, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { authenticated } from "../Api/Middleware.js"
import { ArticlePath, RevisionPath } from "../Api/Paths.js"
import { recordRead } from "../Api/RecordRead.js"
import { articleArg, articleChangeTool, articleWrite, EditResponse } from "../Articles/Api.js"
import { RestoreRevisionPayload, strictBody } from "../Domain/ArticleEdits.js"
import { NotFound, ProtectedLinkViolation } from "../Domain/Errors.js"
import { ListResponse } from "../Domain/Pagination.js"
import { RevisionsQuery } from "../Domain/Queries.js"
import { RevisionDetail, RevisionSummary } from "../Domain/Revision.js"

const revisionArgs = { ...articleArg, n: "revision" }

export class RevisionsApi extends authenticated(
  HttpApiGroup.make("revisions")
    .add(
      HttpApiEndpoint.get("listRevisions", "/articles/:id/revisions")
        .setPath(ArticlePath)
        .setUrlParams(RevisionsQuery)
        .addSuccess(ListResponse(RevisionSummary, "The article's revisions, newest first."))
        .addError(NotFound.Body)
        .annotate(
          AgentTool,
          readTool({
            name: "list_revisions",
            title: "List an article's revisions",
            description:
              "Lists the saved versions of an article, newest first: number, origin (API, MCP, editor, rewrite), reason, who made it and which fields changed. Read one with get_revision; bring one back with restore_revision.",
            pathArgs: articleArg
          })
        )
        .annotateContext(
          endpointDescribed(
            "List an article's revisions",
            "Lists the article's revisions (every saved change, with a full snapshot), newest first, paged like every list: each with its number, origin, reason, time, actor (the API key's name, the assistant's name or the person's e-mail) and changed (the content fields that differ from the revision before)."
          )
        )
    )
    .add(
      recordRead(HttpApiEndpoint.get("getRevision", "/articles/:id/revisions/:n"), RevisionPath, RevisionDetail)
        .annotate(
          AgentTool,
          readTool({
            name: "get_revision",
            title: "Read one revision of an article",
            description:
              "Reads one saved version of an article: its title, body, meta description and featured image as they were saved, and diff, a unified diff of its body against the version before. Use it to see what a change did, or what a restore would bring back.",
            pathArgs: revisionArgs
          })
        )
        .annotateContext(
          endpointDescribed(
            "Read one revision of an article",
            "Returns revision n's snapshot (title, body, meta description, featured image address) with its number, origin, reason, time, actor and changed, and diff: the unified diff of the canonical body from revision n−1 to n (revision 1: from an empty body). A revision the article does not have, or an n that is not a positive integer: 404 not_found."
          )
        )
    )
    .add(
      articleWrite(HttpApiEndpoint.post("restoreRevision", "/articles/:id/revisions/:n/restore"))
        .setPath(RevisionPath)
        .setPayload(strictBody(RestoreRevisionPayload))
        .addSuccess(EditResponse)
        .addError(ProtectedLinkViolation.Body)
        .annotate(AgentTool, {
          ...articleChangeTool(
            "restore_revision",
            "Restore a revision of an article",
            "Brings an article back to a saved version (see list_revisions): saves a new revision with that version's title, body, meta description and featured image. Every protected link of the current body must be in the restored one, else protected_link_violation and nothing is saved. Run it with dry_run: true first (answers the diff, saves nothing) and show the user; then send if_match and an idempotency_key."
          ),
          pathArgs: revisionArgs
        })
        .annotateContext(
          endpointDescribed(
            "Restore a revision of an article",
            "Makes a new revision whose content (title, body, meta description, featured image) equals revision n's: a change like any other, stored with origin API (MCP for the agent tool), the reason given (default: Restored revision n), after the same protected-link check against the current body (422 protected_link_violation). If-Match, Idempotency-Key, dry_run (a preview: nothing saved, no quota used) and the day's edit quota apply as for PATCH. Restoring the current content changes nothing: 200 and no revision. The body is optional: none, or JSON with a reason."
          )
        )
    )
).annotateContext(
  groupDescribed(
    "Revisions",
    "Every change of an article is kept as a numbered revision with a full snapshot: list them, read one with its diff, and restore one."
  )
) {}
