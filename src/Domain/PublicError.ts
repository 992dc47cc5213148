import { HttpApiSchema } from "@effect/platform"
import { type Cause, Data, Predicate, Schema } from "effect"

/**
 * How a service error is answered: the `error` identifier of its body, its HTTP status, what it means, and which of
 * its fields are sent as response headers (header name → field name) rather than in the body.
 */
export interface PublicAnswer<Error extends string = string, Internal extends string = string> {
  readonly error: Error
  readonly status: number
  readonly description: string
  readonly headers?: Readonly<Record<string, Internal>>
}

/** The public body of an error declared with `fields`: `{ error, ...fields }`, less the fields sent as headers. */
type BodyFields<Error extends string, Fields extends Schema.Struct.Fields, Internal extends string> = {
  readonly error: Schema.Literal<[Error]>
} & Omit<Fields, Internal>

/**
 * A public error: a tagged error (yield it to fail) whose class says how it is answered (`answer`) and holds, as
 * `Body`, the schema that encodes it to (and documents it as) its public body with its HTTP status. The class is not
 * a schema itself, so an API declaration can only name the error by its body: `.addError(NotFound.Body)`.
 */
export interface PublicErrorClass<
  Self,
  Tag extends string,
  Error extends string,
  Fields extends Schema.Struct.Fields,
  Internal extends string
> {
  new (
    props: Schema.Struct.Constructor<Fields>
  ): Cause.YieldableError & { readonly _tag: Tag } & Schema.Struct.Type<Fields>
  readonly _tag: Tag
  readonly fields: Fields
  readonly answer: PublicAnswer<Error, Internal>
  readonly Body: Schema.Schema<Self, Schema.Struct.Encoded<BodyFields<Error, Fields, Internal>>>
}

/** What `publicError` needs of any public error's class. */
interface AnyPublicErrorClass {
  readonly answer: PublicAnswer
  readonly Body: Schema.Schema<unknown, Record<string, unknown>>
}

const isPublicErrorClass = (u: unknown): u is AnyPublicErrorClass =>
  typeof u === "function" && "answer" in u && "Body" in u

/**
 * Declares a public error once: its tag, how it is answered (identifier, status, meaning, header fields) and its
 * fields. `export class NotFound extends PublicError<NotFound>()("NotFound", { error: "not_found", … }, { message }) {}`
 */
export const PublicError =
  <Self>() =>
  <
    const Tag extends string,
    const Error extends string,
    Fields extends Schema.Struct.Fields,
    const Internal extends keyof Fields & string = never
  >(
    tag: Tag,
    answer: PublicAnswer<Error, Internal>,
    fields: Fields
  ): PublicErrorClass<Self, Tag, Error, Fields, Internal> => {
    const props = Schema.Struct(fields)
    const internal: ReadonlyArray<string> = Object.values(answer.headers ?? {})
    const bodyNames = Object.keys(fields).filter((name) => !internal.includes(name))
    class Base extends Data.TaggedError(tag)<Record<string, unknown>> {
      static readonly _tag = tag
      static readonly fields = fields
      static readonly answer = answer
      constructor(given: Schema.Struct.Constructor<Fields>) {
        // Checked as the error is made, as a schema class would be.
        super(props.make(given))
      }
      /** Made for the class it is read from (the declared error, not this base), once. */
      static get Body() {
        // biome-ignore lint/complexity/noThisInStatic: it is the declared error (a subclass), whose instances it makes
        return bodyOnce(this)
      }
    }
    const bodyOnce = (cls: typeof Base) => {
      const body = bodyOf(cls)
      Object.defineProperty(cls, "Body", { value: body })
      return body
    }
    const bodyOf = (cls: typeof Base) =>
      Schema.transform(
        Schema.Struct({
          error: Schema.Literal(answer.error).annotations({ description: "Error identifier." }),
          ...Object.fromEntries(bodyNames.map((name) => [name, fields[name]]))
        }).annotations({ identifier: tag, description: answer.description }),
        Schema.declare((u): u is Base => u instanceof cls, { identifier: tag }),
        {
          strict: false,
          // The body was decoded by the struct above: its fields are the error's, less those sent as headers.
          decode: ({ error: _, ...rest }) => new cls(rest as Schema.Struct.Constructor<Fields>),
          encode: (error: Base) =>
            Object.fromEntries([
              ["error", answer.error],
              ...bodyNames.filter((name) => name in error).map((name) => [name, error[name]])
            ])
        }
      ).annotations(HttpApiSchema.annotations({ status: answer.status, description: answer.description }))
    return Base as unknown as PublicErrorClass<Self, Tag, Error, Fields, Internal>
  }

/** The public error class of a value, when it is one. */
export const publicClassOf = (error: unknown) => {
  const cls: unknown = Predicate.isObject(error) ? error.constructor : undefined
  return isPublicErrorClass(cls) ? cls : undefined
}
