/** The path of a request URL, without its query string. */
export const pathOf = (url: string) => url.split("?")[0] ?? url
