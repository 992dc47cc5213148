/** Ordinary prose in paragraphs with a link and emphasis, `length` characters long (a canonical body). */
export const proseBody = (length: number): string => {
  const paragraph = (n: number) =>
    `<p>Paragraph ${n} tells how a <strong>local plumber</strong> keeps <a href="https://example.org/${n}">boilers</a> and pipes in order.</p>`
  let body = ""
  for (let n = 0; body.length + paragraph(n).length <= length; n++) body += paragraph(n)
  return body + "x".repeat(length - body.length)
}
