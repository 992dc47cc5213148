/**
 * The layering, checked by `npm run lint:deps` (dependency-cruiser): declarations load no SQL and no server, a
 * feature reaches another only through its service, and folders do not depend on each other in a circle.
 * Any violation fails the check. Type-only imports count (`tsPreCompilationDeps`): a page that takes its row type from
 * a repository depends on that repository's layer even though the import leaves no trace in the built code. The
 * browser scripts alone may import types beyond their own modules (the build erases them), and only src/Domain/'s.
 */
/**
 * The modules the pages share with the cards, which run in browsers too: the markup, the charts, the line and word
 * diffs and the reading of a body's text they are made from (parse5, no server).
 */
const sharedBrowserModules =
  "^src/(Ui/(Markup|Charts|DiffView|WordDiffView|ChangeView)|Domain/(Controls|BodyDiff|WordDiff)|Html/(TextBlocks|Fragment|WordCount))\\.ts$"

module.exports = {
  forbidden: [
    {
      name: "declarations-load-no-sql-or-server",
      comment:
        "src/Api.ts (the root), src/Api/, src/Domain/ and each feature's Api.ts are declarations: importable by a client or a script without a database or a server.",
      severity: "error",
      from: { path: ["^src/(Api|Domain)/", "^src/Api\\.ts$", "^src/[A-Za-z]+/Api\\.ts$"] },
      to: {
        path: [
          "Repo\\.ts$",
          "^src/Sql/",
          "^src/Server/",
          "^src/Mcp/InProcess\\.ts$",
          "^src/Config\\.ts$",
          "(^|/)node_modules/(pg|@effect/sql|@effect/sql-pg|@electric-sql/[^/]+|@effect/platform-node)/"
        ]
      }
    },
    {
      name: "no-other-features-http-or-repo",
      comment: "A feature reaches another feature through its service, never through its handlers or its SQL.",
      severity: "error",
      // The composition root assembles every feature's handlers.
      from: { path: "^src/([A-Za-z]+)(/|\\.ts$)", pathNot: "^src/(Server/|main\\.ts$)" },
      to: { path: "^src/[A-Za-z]+/([A-Za-z]*Repo|Http)\\.ts$", pathNot: "^src/$1/" }
    },
    {
      name: "editor-is-browser-code-on-its-own",
      comment:
        "src/Ui/Editor/ is the article page's script (built for browsers into dist/editor.js): it imports only its own modules and ProseMirror, and no server module imports it.",
      severity: "error",
      from: { path: "^src/Ui/Editor/" },
      to: { path: "^src/", pathNot: "^src/Ui/Editor/", dependencyTypesNot: ["type-only"] }
    },
    {
      name: "server-does-not-load-the-editor",
      comment: "The server serves the built editor script as a file; it never imports the editor's modules.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/Ui/Editor/" },
      to: { path: "^src/Ui/Editor/" }
    },
    {
      name: "cards-are-browser-code-on-their-own",
      comment:
        "src/Ui/Cards/ are the assistants' cards (built for browsers into dist/cards/): they import their own modules and the pure markup, chart and diff modules the pages share, nothing of the server.",
      severity: "error",
      from: { path: "^src/Ui/Cards/" },
      to: {
        path: "^src/",
        pathNot: ["^src/Ui/Cards/", sharedBrowserModules],
        dependencyTypesNot: ["type-only"]
      }
    },
    {
      name: "shared-browser-modules-stay-pure",
      comment:
        "The markup, chart and diff modules run in browsers too (in the cards): they import only each other (and packages that run in browsers).",
      severity: "error",
      from: { path: sharedBrowserModules },
      to: { path: "^src/", pathNot: sharedBrowserModules, dependencyTypesNot: ["type-only"] }
    },
    {
      name: "browser-code-takes-types-from-the-domain",
      comment:
        "The browser scripts (the editor, the cards, the markup, chart and diff modules) may import types besides their own modules, which the build erases; those types are the wire types of src/Domain/.",
      severity: "error",
      from: { path: ["^src/Ui/(Editor|Cards)/", sharedBrowserModules] },
      to: {
        path: "^src/",
        pathNot: ["^src/(Domain|Ui/Editor|Ui/Cards)/", sharedBrowserModules],
        dependencyTypes: ["type-only"]
      }
    },
    {
      name: "server-does-not-load-the-cards",
      comment: "The server writes the built card scripts into the cards' documents; it never imports their modules.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/Ui/Cards/" },
      to: { path: "^src/Ui/Cards/" }
    },
    {
      name: "no-cycles-between-folders",
      comment: "Folders depend on each other in one direction.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] }
  }
}
