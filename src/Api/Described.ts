import { OpenApi } from "@effect/platform"

/** A group's heading in the OpenAPI document: the name of its tag and what the group is for. */
export const groupDescribed = (title: string, description: string) => OpenApi.annotations({ title, description })

/** An endpoint's text in the OpenAPI document: its one-line summary and its full description. */
export const endpointDescribed = (summary: string, description: string) => OpenApi.annotations({ summary, description })
